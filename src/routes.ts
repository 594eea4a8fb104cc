/**
 * Every API route, in one list: mounted by app.ts's createApp and described by /api/openapi.json.
 * A feature adds its routes here (one line), nowhere else.
 */
import type { AnyRoute } from './http/route.js';
import { accountRoutes } from './features/accounts/routes.js';
import { inviteRoutes } from './features/accounts/inviteRoutes.js';
import { memberRoutes } from './features/accounts/memberRoutes.js';
import { sessionRoutes } from './features/accounts/sessionRoutes.js';
import { aiRoutes } from './features/ai/routes.js';
import { editRoutes } from './features/edit/routes.js';
import { jobRoutes } from './features/ingest/routes.js';
import { jobControlRoutes } from './features/ingest/jobControlRoutes.js';
import { correctionRoutes } from './features/library/routes/corrections.js';
import { searchRoutes } from './features/search/routes.js';
import { browseRoutes } from './features/library/routes/browse.js';
import { timelineRoutes } from './features/library/routes/timeline.js';
import { peopleRoutes } from './features/faces/routes.js';
import { collectionRoutes } from './features/library/routes/collections.js';
import { folderRoutes } from './features/library/routes/folders.js';
import { generateRoutes } from './features/generate/routes.js';
import { mediaRoutes } from './features/library/routes/media.js';
import { bulkRoutes } from './features/library/routes/bulk.js';
import { trashRoutes } from './features/library/routes/trash.js';
import { uploadRoutes } from './features/library/routes/upload.js';
import { lookupRoutes } from './features/library/routes/lookup.js';
import { modelRoutes } from './features/models/routes.js';
import { searchByImageRoutes } from './features/library/routes/searchByImage.js';
import { eventRoutes } from './features/events/index.js';
import { watchRoutes } from './features/watch/index.js';
import { backupRoutes } from './features/backup/index.js';
import { duplicateRoutes } from './features/duplicates/index.js';
import { adminRoutes } from './features/admin/index.js';
import { shareRoutes } from './features/share/index.js';
import { placeRoutes } from './features/places/routes.js';

export const ROUTES: AnyRoute[] = [
  ...accountRoutes,
  ...sessionRoutes,
  ...inviteRoutes,
  ...memberRoutes,
  ...collectionRoutes,
  ...browseRoutes,
  ...timelineRoutes,
  ...bulkRoutes,
  ...peopleRoutes,
  ...mediaRoutes,
  ...trashRoutes,
  ...folderRoutes,
  ...uploadRoutes,
  ...lookupRoutes,
  ...aiRoutes,
  ...editRoutes,
  ...generateRoutes,
  ...jobRoutes,
  ...jobControlRoutes,
  ...correctionRoutes,
  ...searchRoutes,
  ...modelRoutes,
  ...eventRoutes,
  ...watchRoutes,
  ...backupRoutes,
  ...duplicateRoutes,
  ...searchByImageRoutes,
  ...adminRoutes,
  ...shareRoutes,
  ...placeRoutes,
];
