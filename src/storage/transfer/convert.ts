/**
 * SQLite values → the PostgreSQL column types of the same tables: 0/1 → boolean, ISO text → timestamptz
 * (passed as text: PostgreSQL parses it), BLOB → bytea, JSON text → json (as text: key order kept),
 * path text → ltree (as text). Everything else passes as it is.
 */
export type PgColumnType = string;

/** One value of a SQLite row, ready as a `pg` parameter for a column of `type` (information_schema's data_type). */
export function toPgValue(value: unknown, type: PgColumnType): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === 1 || value === true || value === '1';
  if (type === 'bytea') return Buffer.isBuffer(value) ? value : Buffer.from(String(value));
  if (type === 'bigint' && typeof value === 'bigint') return value.toString();
  return value;
}
