/** Public API of the search feature for the other features: the scored mode of browse. */
export { scoredBrowse, type ScoredParams } from './scoredBrowse.js';
export type { SearchDeps } from './scoring.js';
export { searchModel } from './scoring.js';
