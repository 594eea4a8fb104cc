/**
 * GET /api/events through real HTTP on 127.0.0.1 with the stand-in models: an upload's status changes
 * arrive live, a reconnect with Last-Event-ID (header or query) replays exactly what was missed, another
 * organization's events never arrive, heartbeats come, deletes and job progress are reported, bad and
 * expired ids are answered, and a server shutting down ends its streams instead of waiting for them.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/platform/logger.js';
import { openSse, type SseClient, type SseMessage } from '../../helpers/sse.js';
import { makeImage, startTestApp, TEST_KEY, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  keyB: string;
  orgB: string;
  open: SseClient[];
}
const t = suite<Ctx>('events');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ eventsHeartbeatSeconds: 0.2 });
  ctx.ds = await ctx.app.collection('Live');
  const org = await ctx.app.request('POST', '/api/auth/organization/create', { body: { name: 'Elsewhere' } });
  ctx.orgB = org.body.organization.id;
  const key = await ctx.app.request('POST', '/api/keys', { body: { organizationId: ctx.orgB, role: 'owner' } });
  ctx.keyB = key.body.key;
  ctx.open = [];
});
t.after.each((ctx) => {
  for (const c of ctx.open.splice(0)) c.close();
});
t.after(async (ctx) => ctx.app.close());

async function events(ctx: Ctx, query = '', headers: Record<string, string> = {}, key = TEST_KEY) {
  const c = await openSse(ctx.app.baseUrl, `/api/events${query}`, { 'x-api-key': key, ...headers });
  ctx.open.push(c);
  return c;
}

const forMedia = (id: string) => (m: SseMessage) => m.data?.mediaId === id;
const media = (c: SseClient, id: string) => c.messages.filter(forMedia(id));

async function upload(app: TestApp, ds: string, name: string, key = TEST_KEY) {
  const r = await app.upload(
    { datasetId: ds, name },
    { bytes: await makeImage({ format: 'png' }), filename: name },
    key,
  );
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.mediaId as string;
}

t('the stream answers with event-stream headers, a retry delay and stream.open carrying its id', async (ctx) => {
  const c = await events(ctx);
  assert.is(c.status, 200);
  assert.match(String(c.headers['content-type']), /^text\/event-stream/);
  assert.match(String(c.headers['cache-control']), /no-cache/);
  assert.is(c.headers['x-accel-buffering'], 'no');
  const open = await c.waitFor((m) => m.event === 'stream.open', 5000, 'stream.open');
  assert.is(open.id, String(open.data.lastEventId));
  assert.is(open.data.heartbeatSeconds, 0.2);
});

t('the OpenAPI document describes the stream', async (ctx) => {
  const doc = (await ctx.app.request('GET', '/api/openapi.json')).body;
  const op = doc.paths['/api/events'].get;
  assert.ok(op.responses['200'].content['text/event-stream'], JSON.stringify(op.responses));
  assert.match(op.description, /Last-Event-ID/);
  assert.equal(
    op.parameters.map((p: { name: string }) => p.name),
    ['datasetId', 'lastEventId'],
  );
});

t('an upload is followed live from created through processing and its thumbnail to ready', async (ctx) => {
  const c = await events(ctx);
  await c.waitFor((m) => m.event === 'stream.open');
  const id = await upload(ctx.app, ctx.ds, 'live.png');
  await c.waitFor((m) => forMedia(id)(m) && m.event === 'media.status' && m.data.status === 'ready', 30_000, 'ready');
  const seen = media(c, id).map((m) => `${m.event}:${m.data.status}`);
  assert.equal(seen, [
    'media.created:pending',
    'media.status:processing',
    'media.thumbnail:processing',
    'media.status:ready',
  ]);
  const ids = media(c, id).map((m) => Number(m.id));
  assert.equal(
    ids,
    [...ids].sort((a, b) => a - b),
    'ids increase',
  );
  const ready = media(c, id).at(-1)!.data;
  const item = (await ctx.app.request('GET', `/api/media/${id}`)).body.media;
  assert.is(ready.datasetId, ctx.ds);
  assert.is(ready.path, item.path);
  assert.is(ready.parentPath, item.path.split('.').slice(0, -1).join('.'));
  assert.is(ready.mediaType, 'image');
  assert.is(ready.name, 'live.png');
  assert.is(ready.reason, null);
  // The stand-in profile has no face detector installed: the stage waits, as the item's analysis says.
  const waiting = Object.entries(item.analysis as Record<string, string>)
    .filter(([, state]) => state.startsWith('waiting for model '))
    .map(([stage, state]) => ({ stage, model: state.slice('waiting for model '.length) }))
    .sort((x, y) => (x.stage < y.stage ? -1 : 1));
  assert.equal(ready.waiting, waiting);
  assert.ok(Date.parse(ready.at) <= Date.now());
});

t('a reconnect with Last-Event-ID (header or query) replays exactly the events missed', async (ctx) => {
  const first = await events(ctx);
  const a = await upload(ctx.app, ctx.ds, 'before.png');
  const lastSeen = await first.waitFor((m) => forMedia(a)(m) && m.data.status === 'ready', 30_000, 'a ready');
  first.close();

  const b = await upload(ctx.app, ctx.ds, 'while-away-1.png');
  const c2 = await upload(ctx.app, ctx.ds, 'while-away-2.png');
  await waitForProcessing(ctx.app, b);
  await waitForProcessing(ctx.app, c2);
  await ctx.app.request('DELETE', `/api/media/${b}`);
  const missedNow = async () =>
    (
      await ctx.app.app.services.storage.events.after({
        organizationId: ctx.app.orgId,
        afterId: Number(lastSeen.id),
        limit: 1000,
      })
    ).map((e) => `${e.id} ${e.type}`);
  assert.ok((await missedNow()).length >= 9, (await missedNow()).join(', '));

  for (const how of ['header', 'query'] as const) {
    const missed = await missedNow(); // the second round also missed what the first saw live
    const again =
      how === 'header'
        ? await events(ctx, '', { 'last-event-id': lastSeen.id! })
        : await events(ctx, `?lastEventId=${lastSeen.id}`);
    const open = await again.waitFor((m) => m.event === 'stream.open');
    assert.is(open.data.lastEventId, Number(lastSeen.id), `${how}: continues from the id given`);
    // Events appended after the snapshot (the ingest summary's job.progress comes every 2 s while work
    // remains) may follow live: the replay is exactly the missed ones, in order, before anything else.
    const replayed = (await again.waitForCount((m) => m.event !== 'stream.open', missed.length, 10_000)).slice(
      0,
      missed.length,
    );
    assert.equal(
      replayed.map((m) => `${m.id} ${m.event}`),
      missed,
      `${how}: exactly the missed events, in order`,
    );
    assert.ok(!again.messages.some((m) => m.event === 'reset'), `${how}: no reset`);
    const deleted = replayed.find((m) => m.event === 'media.deleted')!;
    assert.is(deleted.data.mediaId, b);
    assert.is(deleted.data.status, 'deleted');
    assert.is(deleted.data.deletedCount, 1);
    // Still live afterwards.
    const d = await upload(ctx.app, ctx.ds, `after-${how}.png`);
    await again.waitFor((m) => forMedia(d)(m) && m.data.status === 'ready', 30_000, `${how}: live after replay`);
    again.close();
  }
});

t("another organization's events are not delivered; its collection is refused", async (ctx) => {
  const mine = await events(ctx);
  const theirs = await events(ctx, '', {}, ctx.keyB);
  await theirs.waitFor((m) => m.event === 'stream.open');
  const dsB = (
    await ctx.app.request('POST', `/api/organization/${ctx.orgB}/datasets`, { key: ctx.keyB, body: { name: 'B' } })
  ).body.dataset.id;
  const a = await upload(ctx.app, ctx.ds, 'a-only.png');
  const b = await upload(ctx.app, dsB, 'b-only.png', ctx.keyB);
  await mine.waitFor((m) => forMedia(a)(m) && m.data.status === 'ready', 30_000, 'A ready');
  await theirs.waitFor((m) => forMedia(b)(m) && m.data.status === 'ready', 30_000, 'B ready');
  await mine
    .waitFor((m) => forMedia(b)(m), 500)
    .then(
      () => assert.unreachable('A received B’s event'),
      () => undefined,
    );
  assert.ok(!theirs.messages.some((m) => m.data?.datasetId === ctx.ds), 'B received none of A’s events');
  assert.ok(!mine.messages.some((m) => m.data?.datasetId === dsB), 'A received none of B’s events');

  const refused = await events(ctx, `?datasetId=${ctx.ds}`, {}, ctx.keyB);
  assert.is(refused.status, 403);
  assert.is((await refused.body()).error, 'Forbidden');
  // Replaying from 0 does not leak either.
  const replay = await events(ctx, '?lastEventId=0', {}, ctx.keyB);
  await replay.waitFor((m) => forMedia(b)(m) && m.data.status === 'ready', 10_000, 'B replay');
  assert.ok(!replay.messages.some((m) => m.data?.datasetId === ctx.ds), 'replay holds none of A’s events');
});

t('datasetId narrows the stream to one collection', async (ctx) => {
  const other = await ctx.app.collection('Other');
  const c = await events(ctx, `?datasetId=${ctx.ds}`);
  await c.waitFor((m) => m.event === 'stream.open');
  const skip = await upload(ctx.app, other, 'other.png');
  const keep = await upload(ctx.app, ctx.ds, 'kept.png');
  await c.waitFor((m) => forMedia(keep)(m) && m.event === 'media.created', 10_000, 'the collection’s event');
  await waitForProcessing(ctx.app, skip);
  assert.ok(!c.messages.some(forMedia(skip)), 'no event of the other collection');
});

t('heartbeats arrive as comments', async (ctx) => {
  const c = await events(ctx);
  const until = Date.now() + 5000;
  while (c.comments.filter((x) => x.startsWith('heartbeat')).length < 2) {
    if (Date.now() > until) assert.unreachable(`no heartbeats: ${JSON.stringify(c.comments)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});

t('a bad Last-Event-ID answers 400; an expired or unknown one gets reset, then the live stream', async (ctx) => {
  for (const [headers, query] of [
    [{ 'last-event-id': 'abc' }, ''],
    [{}, '?lastEventId=-1'],
    [{}, '?lastEventId=99999999999999999999'],
  ] as const) {
    const bad = await events(ctx, query, headers);
    assert.is(bad.status, 400);
    assert.match((await bad.body()).message, /Last-Event-ID/);
  }
  const { storage } = ctx.app.app.services;
  const before = await storage.events.bounds();
  await upload(ctx.app, ctx.ds, 'to-trim.png');
  await storage.events.trim(new Date(Date.now() + 60_000).toISOString(), 0); // everything
  const after = await storage.events.bounds();
  assert.ok(after.trimmedThrough > before.latest);

  const expired = await events(ctx, '', { 'last-event-id': String(before.latest) });
  const reset = await expired.waitFor((m) => m.event === 'reset', 5000, 'reset');
  assert.ok(Number(reset.id) >= after.latest);
  assert.is(reset.data.lastEventId, Number(reset.id));
  const future = await events(ctx, `?lastEventId=${after.latest + 1000}`);
  assert.is((await future.waitFor((m) => m.event === 'reset', 5000)).data.lastEventId >= after.latest, true);
  const live = await upload(ctx.app, ctx.ds, 'after-reset.png');
  await expired.waitFor((m) => forMedia(live)(m), 10_000, 'live after reset');
});

t('a re-index reports its progress down to done', async (ctx) => {
  const c = await events(ctx);
  await c.waitFor((m) => m.event === 'stream.open');
  const r = await ctx.app.request('POST', '/api/admin/reindex');
  assert.is(r.status, 202);
  const done = await c.waitFor(
    (m) => m.event === 'job.progress' && m.data.job === 'reindex' && m.data.status === 'done',
    30_000,
    'reindex done',
  );
  assert.is(done.data.remaining, 0);
  assert.is(done.data.datasetId, null);
  const reports = c.messages.filter((m) => m.event === 'job.progress' && m.data.job === 'reindex');
  assert.ok(reports[0].data.remaining > 0, JSON.stringify(reports.map((m) => m.data.remaining)));
});

/** createApp behind a plain HTTP server, as main.ts runs it (startTestApp's close() would cut the streams itself). */
async function bareServer() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'events-close-'));
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig(
    { DATA_DIR: dataDir, BOOTSTRAP_API_KEY: TEST_KEY, MODEL_PROFILE: 'test', LOG_LEVEL: 'silent' },
    { port, shutdownGraceSeconds: 30 },
  );
  const app = await createApp(config, createLogger('silent'));
  server.on('request', app.koa.callback());
  const baseUrl = `http://127.0.0.1:${port}`;
  const streams = await Promise.all([1, 2].map(() => openSse(baseUrl, '/api/events', { 'x-api-key': TEST_KEY })));
  for (const s of streams) await s.waitFor((m) => m.event === 'stream.open');
  return {
    app,
    server,
    streams,
    async dispose() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

t('a server shutting down (as main.ts stops) ends its streams at once and opens no new one', async () => {
  const { app, server, streams, dispose } = await bareServer();
  try {
    // Mark closing, stop accepting, wait for the connections: with open streams this would take the grace period.
    const started = Date.now();
    app.markClosing();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    assert.ok(Date.now() - started < 5000, `the server closed in ${Date.now() - started} ms`);
    for (const s of streams) assert.equal(await s.ended, { error: false }, 'ended cleanly');
    const refused = await app.services
      .events!.open({ organizationId: 'x', collectionId: null, lastEventId: null })
      .then(
        () => null,
        (err) => err,
      );
    assert.is(refused?.code, 'unavailable', 'no new stream while closing');
  } finally {
    await app.close();
    await dispose();
  }
});

t('App.close ends open streams instead of hanging on them', async () => {
  const { app, streams, dispose } = await bareServer();
  try {
    const closed = app.close();
    for (const s of streams) assert.equal(await s.ended, { error: false }, 'ended cleanly');
    await closed;
  } finally {
    await dispose();
  }
});

t.run();
