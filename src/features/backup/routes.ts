import { defineRoute } from '../../http/route.js';
import { integrityReport, listBackups, startBackup } from './adminBackups.js';

export const backupRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/admin/backups',
    tag: 'admin',
    summary:
      'The backups in BACKUP_DIR (newest first: files, bytes, what each copied), the one running with its ' +
      'progress (rate, ETA), the schedule (BACKUP_INTERVAL_HOURS, BACKUP_KEEP) and the last failure (admin)',
    responses: { 403: 'admin only' },
    handle: ({ services, principal }) => listBackups(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/backups',
    tag: 'admin',
    summary:
      'Back the library up now into BACKUP_DIR, in the background (admin): the database at this moment, then ' +
      'the files it references that the folder lacks; GET /api/admin/backups shows its progress',
    responses: { 202: 'started', 403: 'admin only', 409: 'a backup is running, or BACKUP_DIR is unset' },
    handle: ({ services, principal, ctx }) => {
      const started = startBackup(services, principal);
      ctx.status = 202;
      return started;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/integrity',
    tag: 'admin',
    summary:
      'The integrity report (admin): originals and derived files missing, items without thumbnails, untracked ' +
      'files, and the originals the last re-hash (npm run check) found rotten',
    responses: { 403: 'admin only' },
    handle: ({ services, principal }) => integrityReport(services, principal),
  }),
];
