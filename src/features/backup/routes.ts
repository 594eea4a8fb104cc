import { defineRoute } from '../../http/route.js';
import { integrityReport, listBackups, repairFromReport, startBackup } from './adminBackups.js';

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
  defineRoute({
    method: 'post',
    path: '/api/admin/integrity/repair',
    tag: 'admin',
    summary:
      'The integrity report, then the repairs that are safe (admin): missing thumbnails and derived files queued ' +
      'to be made again, untracked files moved to DATA_DIR/quarantine; originals are never touched',
    responses: { 403: 'admin only' },
    handle: ({ services, principal }) => repairFromReport(services, principal),
  }),
];
