/** Public API of the admin feature (the storage screen's figures) for the composition root. */
export { adminRoutes } from './routes.js';
