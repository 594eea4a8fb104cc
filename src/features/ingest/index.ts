/** Public API of the ingest feature for the other features: queueing an item's analysis, or its thumbnails. */
export { enqueueIngest, type JobQueueDeps } from './jobs.js';
export { enqueueRenditions } from './renditionJobs.js';
export { settlePlaces } from './places.js';
