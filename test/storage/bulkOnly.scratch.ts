import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { bulkSuite } from './bulkSuite.js';
const dir = mkdtempSync(path.join(os.tmpdir(), 'bulk-'));
let n = 0;
bulkSuite('sqlite', async () => openSqliteStorage(path.join(dir, `t${++n}.db`)));
