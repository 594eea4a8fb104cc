/** Public API of the search feature for the other features: the scored mode of browse. */
export { scoredBrowse, scoredIds, type ScoredParams } from './scoredBrowse.js';
export type { SearchDeps } from './scoring.js';
