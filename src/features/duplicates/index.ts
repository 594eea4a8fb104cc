/** Public API of the duplicates feature (the composition root registers its routes and its scan job). */
export { duplicateRoutes } from './routes.js';
export { registerDuplicateJobs, scanDuplicates, DUPLICATES_SCAN_JOB } from './scanJob.js';
