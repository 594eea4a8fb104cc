/**
 * Worker thread entry of the threaded text index (thread.ts, which starts it
 * by file name: this file must stay beside it, both as .ts and as the built
 * .js): a read-only connection of its own to the library file, and the same
 * FTS5 search as in-thread (textIndex.ts), answering one query per message;
 * or warming its page cache (warm.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { serializeError } from '../../../platform/errors.js';
import { sqliteTextIndex } from './textIndex.js';
import { warmTextIndex } from './warm.js';
import type { TextWorkerReply, TextWorkerRequest, TextWorkerSetup } from './thread.js';

const { file, cacheMiB } = workerData as TextWorkerSetup;
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
// The index's own pages (doclists, the row map and its media index): allocated as they are read.
db.pragma(`cache_size = -${Math.round(cacheMiB * 1024)}`);
db.pragma('temp_store = MEMORY'); // as the main connection (database.ts): the fts5vocab table lives in temp
const index = sqliteTextIndex(db);
const port = parentPort!;

port.on('message', (m: TextWorkerRequest) => {
  const reply = (r: TextWorkerReply) => port.postMessage(r);
  const answer =
    'warm' in m ? warmTextIndex(db).then((rows) => ({ rows })) : index.search(m.query).then((hits) => ({ hits }));
  answer.then(
    (r) => reply({ id: m.id, ...r }),
    (err: unknown) => reply({ id: m.id, error: serializeError(err) }),
  );
});
