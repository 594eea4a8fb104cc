/** Watched folders (ours): configuration routes, WATCH_DIRS at start, and the service that imports. */
export { watchRoutes } from './routes.js';
export { applyEnvWatches } from './folders.js';
export { startWatchService, type WatchService } from './watcher.js';
export { noWatchService, startWatchLeadership } from './leadership.js';
