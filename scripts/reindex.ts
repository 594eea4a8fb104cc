/**
 * `npm run reindex`: queue a re-embedding of every item with the current
 * default embedding model, for every organization. The running server's job
 * runner does the work in the background (fresh uploads go first); search
 * answers from the previous model's vectors until the new ones cover every
 * object, then switches by itself. Safe to run twice: jobs are keyed by item.
 */
import { loadConfig } from '../src/config.js';
import type { Services } from '../src/features/kernel/services.js';
import { enqueueReindex } from '../src/features/ingest/reindex.js';
import { openStorage } from '../src/storage/openStorage.js';

const config = loadConfig();
const storage = await openStorage({
  dataDir: config.dataDir,
  databaseUrl: config.databaseUrl,
  databaseSchema: config.databaseSchema,
  vectorSearch: config.vectorSearch,
  poolSize: 2,
});
// Enqueueing needs only the store; the server process wakes on its next poll.
const services = { storage, wakeJobs: () => undefined } as unknown as Services;
let total = 0;
for (const org of await storage.accounts.listOrganizations()) {
  const n = await enqueueReindex(services, org.id);
  console.log(`${org.name}: ${n} items queued for re-embedding`);
  total += n;
}
console.log(`${total} items queued; the server works through them in the background (GET /api/jobs shows progress).`);
await storage.close();
