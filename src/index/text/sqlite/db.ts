import type Database from 'better-sqlite3';

/** A connection to the library's SQLite file (the text index lives in the same file as the tables it indexes). */
export type Db = Database.Database;
