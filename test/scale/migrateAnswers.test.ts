/**
 * `npm run migrate` end to end (issue 25): a library built through the HTTP API on SQLite (folders, tags,
 * processed images with captions and vectors), copied by the real script into PostgreSQL (PGlite), then served
 * by a server on PostgreSQL over the same DATA_DIR: every client-visible answer — listings, recursive and
 * filtered browse, a scored search, the folder tree, tag counts, one item in full — is the same as before.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { privatePglite, type TestPostgres } from '../helpers/pglite.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

const test = suite('migrate: the same answers from SQLite and from PostgreSQL');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'migrate-answers-'));
const REPO = path.resolve(import.meta.dirname, '..', '..');
let pg: TestPostgres | null = null;
test.after(async () => {
  await pg?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const COLOURS = {
  red: { r: 220, g: 20, b: 30 },
  blue: { r: 20, g: 40, b: 220 },
  green: { r: 30, g: 200, b: 40 },
  white: { r: 250, g: 250, b: 250 },
};

/** Builds a small library through the API; returns the collection id. */
async function buildLibrary(app: TestApp): Promise<string> {
  const ds = await app.collection('Moved');
  const folder = await app.request('POST', '/api/folder', { body: { datasetId: ds, name: 'Trips' } });
  assert.is(folder.status, 200, JSON.stringify(folder.body));
  const ids: string[] = [];
  let n = 0;
  for (const [name, color] of Object.entries(COLOURS)) {
    for (const where of [null, folder.body.folder.id as string]) {
      const fields: Record<string, string> = { datasetId: ds, name: `${name}-${n++}.png` };
      if (where) fields.folderId = where;
      const bytes = await makeImage({ format: 'png', width: 64 + n, height: 48, color });
      const up = await app.upload(fields, { bytes, filename: fields.name });
      assert.is(up.status, 200, JSON.stringify(up.body));
      ids.push(up.body.mediaId);
    }
  }
  for (const id of ids) await waitForProcessing(app, id, 60_000);
  const tag = await app.request('POST', `/api/media/${ids[0]}/tags`, { body: { label: 'trip', value: 'rome' } });
  assert.ok(tag.status < 300, JSON.stringify(tag.body));
  return ds;
}

/** The answers a client sees, with what legitimately differs between two servers (their port, signed file URLs) masked. */
async function answers(app: TestApp, ds: string): Promise<Record<string, unknown>> {
  const get = async (url: string) => {
    const r = await app.request('GET', url);
    assert.is(r.status, 200, `${url}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const list = await get(`/api/dataset/${ds}/media?recursive=true&limit=50`);
  const firstImage = (list.media as Array<{ id: string; type: string }>).find((m) => m.type === 'image')!;
  const raw = {
    root: await get(`/api/dataset/${ds}/media`),
    recursive: list,
    byName: await get(`/api/dataset/${ds}/media?recursive=true&sortBy=name&sortDirection=asc`),
    tagged: await get(`/api/dataset/${ds}/media?recursive=true&tags=rome`),
    search: await get(`/api/dataset/${ds}/media?recursive=true&q=red`),
    tree: await get(`/api/dataset/${ds}/folders`),
    tags: await get(`/api/dataset/${ds}/tags`),
    item: await get(`/api/media/${firstImage.id}`),
  };
  const text = JSON.stringify(raw)
    .replaceAll(app.baseUrl, 'BASE')
    .replace(/BASE\/files\/[^"]+/g, 'FILE')
    // Scores are computed in double precision on both engines; their last digits may differ.
    .replace(/("_score":)(-?\d+\.\d{6})\d*/g, '$1$2');
  return JSON.parse(text) as Record<string, unknown>;
}

function runMigrate(url: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/migrate.ts', '--from', dataDir, '--to', url, '--schema', 'moved'],
      { cwd: REPO, env: { ...process.env, DATABASE_URL: '' } },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('a library served from SQLite answers the same after npm run migrate, served from PostgreSQL', async () => {
  const sqliteApp = await startTestApp({ dataDir });
  let ds: string;
  let before: Record<string, unknown>;
  try {
    ds = await buildLibrary(sqliteApp);
    before = await answers(sqliteApp, ds);
  } finally {
    await sqliteApp.close();
  }
  const listed = (name: string) => (before[name] as { media: unknown[] }).media.length;
  assert.is(listed('recursive'), 9, 'eight images and a folder');
  assert.is(listed('tagged'), 1);
  assert.ok(listed('search') >= 1, 'the search finds something to compare');
  pg = await privatePglite();
  const migrated = await runMigrate(pg.url);
  assert.is(migrated.code, 0, migrated.output);
  assert.match(migrated.output, 'verified: every table and file matches');

  const pgEnv = { DATABASE_URL: pg.url, DATABASE_SCHEMA: 'moved', DATABASE_POOL_SIZE: '1' };
  const pgApp = await startTestApp({ dataDir }, pgEnv);
  try {
    const after = await answers(pgApp, ds);
    for (const key of Object.keys(before)) assert.equal(after[key], before[key], `${key} differs`);
  } finally {
    await pgApp.close();
  }
});

test.run();
