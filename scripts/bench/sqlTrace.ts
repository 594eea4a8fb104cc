/**
 * Records the statements the storage code prepares and runs while `fn` runs,
 * then asks SQLite how it plans each of them (EXPLAIN QUERY PLAN with the same
 * parameters). It shows the plans of the code the server really runs, so a
 * bench figure can be explained without copying the SQL out of src/.
 *
 * Only statements prepared while tracing are seen: ones a store prepared once
 * at construction are not.
 */
import type { Db } from '../../src/storage/sqlite/database.js';

export interface TracedStatement {
  sql: string;
  plan: string[];
}

const RUNNERS = new Set(['all', 'get', 'run', 'iterate']);
const CHAINERS = new Set(['pluck', 'raw', 'expand', 'safeIntegers', 'bind', 'columns']);

export async function traceSql<T>(db: Db, fn: () => Promise<T>): Promise<{ result: T; statements: TracedStatement[] }> {
  const seen: Array<{ sql: string; args: unknown[] }> = [];
  const original = db.prepare;
  const wrap = (stmt: object, sql: string): object =>
    new Proxy(stmt, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        if (RUNNERS.has(prop)) {
          return (...args: unknown[]) => {
            seen.push({ sql, args });
            return value.apply(target, args);
          };
        }
        if (CHAINERS.has(prop)) {
          return (...args: unknown[]) => {
            const r = value.apply(target, args);
            return r === target ? receiver : r;
          };
        }
        return value.bind(target);
      },
    });
  (db as unknown as { prepare: (sql: string) => object }).prepare = (sql: string) => wrap(original.call(db, sql), sql);
  let result: T;
  try {
    result = await fn();
  } finally {
    delete (db as unknown as { prepare?: unknown }).prepare;
  }
  const statements: TracedStatement[] = [];
  for (const s of seen) {
    if (!/^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)/i.test(s.sql)) continue;
    let plan: string[];
    try {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).all(...(s.args as never[])) as Array<{
        id: number;
        parent: number;
        detail: string;
      }>;
      const depth = new Map<number, number>([[0, -1]]);
      plan = rows.map((r) => {
        const d = (depth.get(r.parent) ?? -1) + 1;
        depth.set(r.id, d);
        return `${'  '.repeat(d)}${r.detail}`;
      });
    } catch (err) {
      plan = [`(no plan: ${(err as Error).message})`];
    }
    statements.push({ sql: s.sql.replace(/\s+/g, ' ').trim(), plan });
  }
  return { result: result!, statements };
}
