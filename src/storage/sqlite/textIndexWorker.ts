/**
 * Worker thread entry of the threaded text index (textIndexThread.ts): a
 * read-only connection of its own to the library file, and the same FTS5
 * search as in-thread (textIndex.ts), answering one query per message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { serializeError } from '../../errors.js';
import { sqliteTextIndex } from './textIndex.js';
import type { TextWorkerReply, TextWorkerRequest, TextWorkerSetup } from './textIndexThread.js';

const { file } = workerData as TextWorkerSetup;
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -65536'); // 64 MiB: the index's own pages (doclists, docs rows)
db.pragma('temp_store = MEMORY'); // as the main connection (database.ts): the fts5vocab table lives in temp
const index = sqliteTextIndex(db);
const port = parentPort!;

port.on('message', (m: TextWorkerRequest) => {
  const reply = (r: TextWorkerReply) => port.postMessage(r);
  index.search(m.query).then(
    (hits) => reply({ id: m.id, hits }),
    (err: unknown) => reply({ id: m.id, error: serializeError(err) }),
  );
});
