import type { Db } from './database.js';

/**
 * The columns of a row type, written as `{ column: 1, … }` so the type check
 * fails when a column of the row type is missing or misspelt.
 */
export const columnsOf = <Row>(columns: Record<keyof Row & string, 1>): Array<keyof Row & string> =>
  Object.keys(columns) as Array<keyof Row & string>;

/**
 * A prepared `SELECT <columns> <rest>` whose rows come back as `Row` objects.
 *
 * better-sqlite3 builds each row object one property at a time, which is
 * slow for wide rows; requests that read hundreds of rows (a search reads
 * ~120 items and the frames, captions and objects of 40) spent most of their
 * storage time there. Here the statement returns plain arrays (`raw`) and a
 * literal compiled once for the column list turns each into an object of one
 * fixed shape, next to free (docs/measurements/storage.md).
 * The column names are this module's callers' constants, never input.
 */
export function rowReader<Row>(
  db: Db,
  columns: Array<keyof Row & string>,
  rest: string,
): (...params: unknown[]) => Row[] {
  const statement = db.prepare(`SELECT ${columns.join(', ')} ${rest}`).raw(true);
  const toRow = new Function(
    'r',
    `return { ${columns.map((c, i) => `${JSON.stringify(c)}: r[${i}]`).join(', ')} };`,
  ) as (r: unknown[]) => Row;
  return (...params) => (statement.all(...params) as unknown[][]).map(toRow);
}
