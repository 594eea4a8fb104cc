/** Public API of the backup feature: its routes and the server's backup service (the composition root's). */
export { backupRoutes } from './routes.js';
export { startBackupService, type BackupService } from './backupService.js';
