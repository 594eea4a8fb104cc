/** Public API of the ingest feature for the other features: queueing an item's analysis. */
export { enqueueIngest, type JobQueueDeps } from './jobs.js';
