/**
 * The image itself, built and run (issue #29): `docker build -t lumen-library .` first, then this file starts
 * containers from it. Skipped with a message where no Docker daemon answers or no image is built (CI).
 *
 * The models volume is the bench's stand-ins at the real default models' cost (scripts/bench/standins, built on
 * first use), so a video's analysis is a long job the way it is with the real models: `docker stop` lands in
 * the middle of it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { benchModelsDir } from '../../scripts/bench/standins/benchModels.js';
import { freePort } from '../helpers/serverProcess.js';
import { sharedPath } from '../helpers/skip.js';

const IMAGE = 'lumen-library';
const KEY = 'container-test-key-0123456789abcdef';
const PUBLIC_URL = 'http://photos.example.test:8080';

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: 'pipe' }).trim();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function imageMissing(): string | null {
  const got = spawnSync('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE], { encoding: 'utf8' });
  if (got.error) return 'no docker client';
  if (got.status !== 0) return got.stderr.includes('No such image') ? `no ${IMAGE} image (docker build)` : 'no daemon';
  return null;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * GET /healthz's status through node:http: while the container starts, Docker's port proxy accepts and resets
 * connections, and Node 20's fetch can then leave its promise pending with nothing keeping the process alive.
 */
const healthz = (base: string) =>
  new Promise<number>((resolve, reject) => {
    const req = http.get(`${base}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('no answer in 5 s')));
  });

interface Ctx {
  skip: string | null;
  tmp: string;
  name: string;
  base: string;
  mounts: string[];
}
const t = suite<Ctx>('the Docker image, run');

t.before((ctx) => {
  ctx.skip = imageMissing();
  if (ctx.skip) return console.log(`SKIP the container tests: ${ctx.skip}`);
  const yolox = sharedPath('models/yolox-nano/yolox_nano.onnx', 'the container tests');
  const ultraface = sharedPath('models/ultraface/version-RFB-320.onnx', 'the container tests');
  if (!yolox || !ultraface) return void (ctx.skip = 'no shared models');
  const models = benchModelsDir({ yolox, ultraface }).dir;
  ctx.tmp = mkdtempSync(path.join(os.tmpdir(), 'container-test-'));
  ctx.name = `lumen-test-${process.pid}`;
  // The stand-ins link to the shared models: the same absolute path inside the container.
  const shared = realpathSync(path.dirname(path.dirname(yolox)));
  ctx.mounts = ['-v', `${models}:/models:ro`, '-v', `${shared}:${shared}:ro`];
});
t.after((ctx) => {
  if (ctx.skip) return;
  spawnSync('docker', ['rm', '-f', ctx.name]);
  rmSync(ctx.tmp, { recursive: true, force: true });
});

/** A /data folder the image's `node` user (1000) owns, as `chown` on the host gives it. */
function dataDir(ctx: Ctx, name: string, owner: number | null) {
  const dir = path.join(ctx.tmp, name);
  execFileSync('mkdir', ['-p', dir]);
  if (owner !== null) chownSync(dir, owner, owner);
  return dir;
}

async function api(ctx: Ctx, method: string, url: string, body?: FormData | object) {
  const json = body !== undefined && !(body instanceof FormData);
  const res = await fetch(ctx.base + url, {
    method,
    headers: { 'x-api-key': KEY, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(body) : (body as FormData | undefined),
  });
  return { status: res.status, body: (await res.json()) as any };
}

t('starts as node in about 2 s, answers /healthz, prints the setup link on PUBLIC_URL', async (ctx) => {
  if (ctx.skip) return;
  if (process.getuid?.() !== 0) return void (ctx.skip = 'not root: cannot give /data to the image user');
  const port = await freePort();
  ctx.base = `http://127.0.0.1:${port}`;
  const env = ['-e', `PUBLIC_URL=${PUBLIC_URL}`, '-e', 'OFFLINE=1', '-e', `BOOTSTRAP_API_KEY=${KEY}`];
  const data = ['-v', `${dataDir(ctx, 'data', 1000)}:/data`];
  const started = Date.now();
  docker('run', '-d', '--name', ctx.name, '-p', `127.0.0.1:${port}:3000`, ...env, ...data, ...ctx.mounts, IMAGE);
  await until('/healthz', 60_000, async () => (await healthz(ctx.base)) === 200);
  console.log(`docker run to first answer: ${Date.now() - started} ms`);
  assert.is(docker('exec', ctx.name, 'id', '-un'), 'node');
  assert.match(docker('logs', ctx.name), `${PUBLIC_URL}/setup?token=`);
});

t(
  'a photo and a video ingest; docker stop mid-video exits 0 inside 10 s; the job resumes where it was',
  async (ctx) => {
    if (ctx.skip) return;
    const heic = sharedPath('fixtures/formats/heic_iphone11promax_gps_grid.heic', 'the ingest in the container');
    const video = sharedPath('fixtures/videos/car-detection.mp4', 'the ingest in the container');
    if (!heic || !video) return;
    const me = await api(ctx, 'GET', '/api/me');
    const made = await api(ctx, 'POST', `/api/organization/${me.body.organizationId}/datasets`, { name: 'Docker' });
    const ids: string[] = [];
    for (const file of [video, heic]) {
      const form = new FormData();
      form.append('datasetId', made.body.dataset.id);
      form.append('name', path.basename(file));
      form.append('file', new Blob([readFileSync(file)]), path.basename(file));
      const up = await api(ctx, 'POST', '/api/upload/multipart', form);
      assert.is(up.status, 200, JSON.stringify(up.body));
      ids.push(up.body.mediaId);
    }
    const analyzeJob = async () => {
      const got = await api(ctx, 'GET', '/api/jobs?limit=50&type=ingest-analyze');
      return (got.body.jobs as any[]).find((j) => j.mediaId === ids[0]);
    };
    await until('a frame of the video analysed', 300_000, async () => (await analyzeJob())?.progress?.done >= 1);
    const sent = Date.now();
    docker('stop', ctx.name); // Docker's default: SIGTERM, SIGKILL after 10 s
    const stopMs = Date.now() - sent;
    console.log(`docker stop mid-job: ${stopMs} ms`);
    assert.is(docker('inspect', '-f', '{{.State.ExitCode}}', ctx.name), '0', 'stopped by itself, not killed (137)');
    assert.ok(stopMs < 10_000, `docker stop took ${stopMs} ms`);
    assert.match(docker('logs', ctx.name), 'job interrupted by shutdown; queued again');

    docker('start', ctx.name);
    await until('/healthz after the start', 60_000, async () => (await healthz(ctx.base)) === 200);
    const done = await until('the video analysed', 600_000, async () => {
      const job = await analyzeJob();
      return job?.status === 'succeeded' && job;
    });
    assert.is(done.attempts, 1, 'the stopped attempt was given back');
    for (const id of ids) {
      const media = await until(`${id} ready`, 300_000, async () => {
        const got = await api(ctx, 'GET', `/api/media/${id}`);
        return got.body.media?.processingStatus === 'ready' && got.body.media;
      });
      assert.ok(media.thumbnailUrl, `${media.name}: a thumbnail`);
      for (const f of media.frames) assert.is(f.captions.length, 1, `${media.name} frame ${f.timestamp}: one caption`);
    }
  },
);

t('a bind-mounted /data the node user cannot write: one line naming the folder, the user and the fix', (ctx) => {
  if (ctx.skip) return;
  const got = spawnSync('docker', ['run', '--rm', '-v', `${dataDir(ctx, 'root-owned', null)}:/data`, IMAGE], {
    encoding: 'utf8',
  });
  assert.is.not(got.status, 0);
  const said = got.stdout + got.stderr;
  assert.match(said, 'DATA_DIR /data is not writable by this process (user id 1000');
  assert.match(said, 'chown -R 1000:1000');
  assert.not.match(said, /\n\s+at /, 'no stack trace');
});

t('lean: linux/x64 onnxruntime only, no npm ffmpeg, no onnxruntime-web; the app layers measured', (ctx) => {
  if (ctx.skip) return;
  const ls = docker(
    'run',
    '--rm',
    '--entrypoint',
    'sh',
    IMAGE,
    '-c',
    'ls node_modules/onnxruntime-node/bin/*/; ls -d node_modules/@ffmpeg-installer node_modules/onnxruntime-web 2>&1; du -sm node_modules',
  );
  assert.not.match(ls, /darwin|win32|arm64/);
  assert.match(ls, /@ffmpeg-installer': No such file/);
  assert.match(ls, /onnxruntime-web': No such file/);
  const size = (ref: string) => Number(docker('image', 'inspect', '-f', '{{.Size}}', ref));
  const layersMb = Math.round((size(IMAGE) - size('node:20-bookworm-slim')) / 1e6);
  console.log(`image ${Math.round(size(IMAGE) / 1e6)} MB, ${layersMb} MB above the base; node_modules ${ls.trim()}`);
  assert.ok(layersMb < 800, `the layers above the base image are ${layersMb} MB`);
});

t.run();
