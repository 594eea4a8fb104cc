/**
 * loadImageInput + SSRF guard. All traffic stays on 127.0.0.1: a local server
 * plays the remote sites, injected `lookup`s play DNS, and a tripwire on
 * dns.lookup makes any real DNS query from this process fail the test.
 *
 * The redirect re-check is exercised for real: a fake public name resolves (by
 * the injected lookup) to a public address, which passes the guard; the hop
 * fetcher then asserts it was handed exactly that validated address and swaps
 * it for 127.0.0.1 before calling the real node:http fetcher. The local server
 * answers with a redirect to a private/loopback/metadata address, and the test
 * checks that the loop refuses it before a second request is made.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import dns from 'node:dns';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { isIP, type AddressInfo } from 'node:net';
import sharp from 'sharp';
import { DomainError } from '../../../src/platform/errors.js';
import { fetchImageUrl, loadImageInput, type ImageInputOptions } from '../../../src/features/ai/imageInput.js';
import { httpFetchHop, type HopFetcher } from '../../../src/features/ai/httpHop.js';
import {
  assertPublicHost,
  isBlockedHostname,
  isPrivateAddress,
  type LookupFn,
} from '../../../src/features/ai/netGuard.js';

// --- tripwire: no real DNS from this process ---------------------------------
const realLookup = dns.lookup;
(dns as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) => {
  // IP literals never leave the process (server.listen passes them through here).
  if (isIP(hostname)) return (realLookup as (...a: unknown[]) => unknown)(hostname, ...rest);
  throw new Error(`test tripwire: real DNS lookup of "${hostname}" attempted`);
};

// --- fixtures -----------------------------------------------------------------
const PUBLIC_IP = '93.184.216.34'; // public-looking; never contacted (see hybridFetcher)
let PNG: Buffer;
let JPEG_ROTATED: Buffer;
let base = '';
let port = 0;
let server: http.Server;
let tmpDir = '';
let ownFile = '';
const hits: Array<{ path: string; host: string | undefined }> = [];
let hugeFinished = false;

function hitsTo(p: string) {
  return hits.filter((h) => h.path === p).length;
}

/** An injected DNS: a fixed table, records each query; unknown names fail. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup: LookupFn = async (hostname) => {
    calls.push(hostname);
    const list = table[hostname];
    if (!list) throw Object.assign(new Error(`fake dns: ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

const noDns: LookupFn = async (hostname) => {
  throw new Error(`lookup must not be called (asked for ${hostname})`);
};

/**
 * Hop fetcher for the redirect re-check tests: only accepts the validated
 * public address for fake public names, then really fetches from the local
 * server. Anything else means the guard let something through.
 */
function hybridFetcher() {
  const seen: string[] = [];
  const fetcher: HopFetcher = async (hop) => {
    seen.push(hop.url.href);
    const addrs = hop.addresses.map((a) => a.address);
    if (!addrs.every((a) => a === PUBLIC_IP)) {
      throw new Error(`hop fetcher was handed unvalidated addresses ${addrs.join(',')} for ${hop.url.href}`);
    }
    return httpFetchHop({ ...hop, addresses: [{ address: '127.0.0.1', family: 4 }] });
  };
  return { fetcher, seen };
}

async function rejects(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, DomainError, `expected DomainError, got ${String(err)}`);
    const e = err as DomainError;
    assert.is(e.code, code, `code for "${e.message}"`);
    assert.match(e.message, pattern);
    return e;
  }
  assert.unreachable(`expected ${code} ${pattern}`);
  throw new Error('unreachable');
}

const fetchOpts = (extra: Partial<ImageInputOptions> = {}): ImageInputOptions => ({
  allowPrivate: true,
  lookup: noDns,
  timeoutMs: 2000,
  ...extra,
});

test.before(async () => {
  try {
    await setup();
  } catch (err) {
    console.error('setup failed:', err);
    throw err;
  }
});

async function setup() {
  PNG = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer();
  JPEG_ROTATED = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#a37' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  tmpDir = await mkdtemp(path.join(os.tmpdir(), 'imginput-'));
  ownFile = path.join(tmpDir, 'own.png');
  await writeFile(ownFile, PNG);

  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push({ path: url.pathname, host: req.headers.host });
    const redirect = (location: string) => {
      res.writeHead(302, { Location: location });
      res.end();
    };
    switch (url.pathname) {
      case '/png':
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
        return res.end(PNG);
      case '/redirect':
        return redirect('/png');
      case '/redirect-abs':
        return redirect(`${base}/png`);
      case '/loop':
        return redirect(`/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`);
      case '/redirect-loopback':
        return redirect(`${base}/png`);
      case '/redirect-localhost':
        return redirect(`http://localhost:${port}/png`);
      case '/redirect-metadata':
        return redirect('http://169.254.169.254/latest/meta-data/');
      case '/redirect-rebind':
        return redirect('http://inside.example/png');
      case '/redirect-mapped':
        return redirect(`http://[::ffff:127.0.0.1]:${port}/png`);
      case '/redirect-no-location':
        res.writeHead(302);
        return res.end();
      case '/redirect-file':
        return redirect('file:///etc/passwd');
      case '/redirect-own':
        return redirect(`${base}/files/own.png`);
      case '/huge': {
        // Chunked, no Content-Length: the cap must work on the stream.
        res.writeHead(200, { 'Content-Type': 'image/png' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 16 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          hugeFinished = true;
          res.end();
        };
        res.on('error', () => {});
        return pump();
      }
      case '/huge-declared':
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': 50 * 1024 * 1024 });
        return res.write(Buffer.alloc(1024));
      case '/slow':
        res.writeHead(200, { 'Content-Type': 'image/png' });
        return res.write(PNG.subarray(0, 10)); // ...and never finishes
      case '/hang':
        return; // never answers
      case '/text':
        res.writeHead(200, { 'Content-Type': 'image/png' });
        return res.end('this is not an image at all');
      default:
        res.writeHead(404);
        return res.end('nope');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
}

test.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(tmpDir, { recursive: true, force: true });
  (dns as { lookup: unknown }).lookup = realLookup;
});

// --- netGuard -------------------------------------------------------------------

test('isPrivateAddress: IPv4, IPv6 and IPv4-embedding IPv6 forms', () => {
  const privateOnes = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    '[::1]',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.5',
    '::ffff:169.254.169.254',
    '::ffff:0.0.0.0',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:5',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:db8::1',
    '100::1',
    'not-an-ip',
    '',
    '999.1.1.1',
    'localhost',
  ];
  const publicOnes = [
    '8.8.8.8',
    '1.1.1.1',
    PUBLIC_IP,
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '223.255.255.255',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001::200e]',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  for (const ip of privateOnes) assert.ok(isPrivateAddress(ip), `${ip} should be private`);
  for (const ip of publicOnes) assert.not.ok(isPrivateAddress(ip), `${ip} should be public`);
});

test('isBlockedHostname: localhost, metadata and internal names', () => {
  for (const h of [
    'localhost',
    'LOCALHOST',
    'localhost.',
    'api.localhost',
    'metadata.google.internal',
    'metadata',
    'intranet',
    'printer.local',
    'x.home.arpa',
    'db.internal',
  ]) {
    assert.ok(isBlockedHostname(h), h);
  }
  for (const h of ['example.com', 'images.example.org.', 'cdn.local-images.com'])
    assert.not.ok(isBlockedHostname(h), h);
});

test('assertPublicHost: literals, blocked names, resolved addresses, allowPrivate', async () => {
  const { lookup, calls } = fakeDns({
    'public.example': [PUBLIC_IP, '2606:4700::6810:1'],
    'private.example': ['10.0.0.5'],
    'mixed.example': [PUBLIC_IP, '127.0.0.1'],
  });
  assert.equal(await assertPublicHost('public.example', lookup, false), [
    { address: PUBLIC_IP, family: 4 },
    { address: '2606:4700::6810:1', family: 6 },
  ]);
  assert.equal(await assertPublicHost('8.8.8.8', noDns, false), [{ address: '8.8.8.8', family: 4 }]);
  await rejects(assertPublicHost('private.example', lookup, false), 'invalid_input', /not allowed/);
  await rejects(assertPublicHost('mixed.example', lookup, false), 'invalid_input', /not allowed/);
  await rejects(assertPublicHost('localhost', noDns, false), 'invalid_input', /not allowed/);
  await rejects(assertPublicHost('metadata.google.internal', noDns, false), 'invalid_input', /not allowed/);
  await rejects(assertPublicHost('[::1]', noDns, false), 'invalid_input', /not allowed/);
  await rejects(assertPublicHost('nowhere.example', lookup, false), 'unprocessable', /could not be resolved/);
  assert.equal(await assertPublicHost('private.example', lookup, true), [{ address: '10.0.0.5', family: 4 }]);
  assert.equal(await assertPublicHost('127.0.0.1', noDns, true), [{ address: '127.0.0.1', family: 4 }]);
  assert.equal(calls, ['public.example', 'private.example', 'mixed.example', 'nowhere.example', 'private.example']);
});

// --- data URIs ----------------------------------------------------------------------

test('data URI: decodes and reports format, size, source', async () => {
  const img = await loadImageInput(`data:image/png;base64,${PNG.toString('base64')}`, { allowPrivate: false });
  assert.is(img.source, 'data-uri');
  assert.is(img.format, 'png');
  assert.is(img.width, 8);
  assert.is(img.height, 6);
  assert.ok(img.buffer.equals(PNG));
});

test('data URI: width/height follow EXIF orientation', async () => {
  const img = await loadImageInput(`data:image/jpeg;base64,${JPEG_ROTATED.toString('base64')}`, {
    allowPrivate: false,
  });
  assert.is(img.format, 'jpeg');
  assert.equal([img.width, img.height], [6, 8]);
});

test('data URI: garbage base64, wrong media type, not base64 → 400 naming image', async () => {
  await rejects(
    loadImageInput('data:image/png;base64,@@@not*base64!!', { allowPrivate: false }),
    'invalid_input',
    /^image .*base64/,
  );
  await rejects(loadImageInput('data:image/png;base64,', { allowPrivate: false }), 'invalid_input', /^image /);
  await rejects(loadImageInput('data:image/png;base64,A', { allowPrivate: false }), 'invalid_input', /^image /);
  await rejects(
    loadImageInput('data:text/plain;base64,aGVsbG8=', { allowPrivate: false }),
    'invalid_input',
    /^image .*image\/\*/,
  );
  await rejects(loadImageInput('data:image/png,rawbytes', { allowPrivate: false }), 'invalid_input', /^image .*base64/);
});

test('data URI: valid base64 that is not an image → 422', async () => {
  const uri = `data:image/png;base64,${Buffer.from('hello, definitely not a picture').toString('base64')}`;
  await rejects(loadImageInput(uri, { allowPrivate: false }), 'unprocessable', /image could not be decoded/);
});

test('data URI: over maxBytes → 413 before decoding', async () => {
  const big = Buffer.alloc(2 * 1024 * 1024).toString('base64');
  await rejects(
    loadImageInput(`data:image/png;base64,${big}`, { allowPrivate: false, maxBytes: 1024 * 1024 }),
    'too_large',
    /image is larger than 1 MB/,
  );
});

test('format not in allowedFormats → 422 naming the format and the accepted ones', async () => {
  const uri = `data:image/png;base64,${PNG.toString('base64')}`;
  const e = await rejects(
    loadImageInput(uri, { allowPrivate: false, allowedFormats: ['jpeg', 'webp'] }),
    'unprocessable',
    /png/,
  );
  assert.match(e.message, /jpeg, webp/);
});

// --- URL shape ------------------------------------------------------------------------

test('non-http(s) inputs → 400', async () => {
  for (const input of [
    'ftp://example.com/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
    '/relative/a.png',
    'gopher://x/',
  ]) {
    await rejects(
      loadImageInput(input, { allowPrivate: false, lookup: noDns }),
      'invalid_input',
      /^image must be an http\(s\) URL or a data URI$/,
    );
  }
  await rejects(loadImageInput('   ', { allowPrivate: false }), 'invalid_input', /^image /);
});

// --- SSRF refusals (allowPrivate: false) ----------------------------------------------

test('SSRF: loopback, localhost, metadata and private-resolving hosts are refused without any request', async () => {
  const before = hits.length;
  const { lookup, calls } = fakeDns({ 'innocent.example': ['10.0.0.5'], 'sneaky.example': [PUBLIC_IP, '::1'] });
  const refused = [
    `${base}/png`,
    `http://localhost:${port}/png`,
    `http://LOCALHOST.:${port}/png`,
    `http://[::1]:${port}/png`,
    `http://[::ffff:127.0.0.1]:${port}/png`,
    `http://2130706433:${port}/png`, // 127.0.0.1 as one decimal number
    `http://0x7f.1:${port}/png`,
    'http://0.0.0.0/png',
    'http://169.254.169.254/latest/meta-data',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00::1]/a.png',
    'http://100.64.1.1/a.png',
    'https://innocent.example/a.png',
    'https://sneaky.example/a.png',
  ];
  for (const url of refused) {
    await rejects(loadImageInput(url, { allowPrivate: false, lookup }), 'invalid_input', /not allowed/);
  }
  assert.equal(calls, ['innocent.example', 'sneaky.example'], 'only real names were resolved');
  assert.is(hits.length, before, 'no request reached the server');
});

// --- fetching (the local server needs allowPrivate: true) ---------------------------

test('fetch: a PNG over http', async () => {
  const img = await loadImageInput(`${base}/png`, fetchOpts());
  assert.is(img.source, 'url');
  assert.is(img.format, 'png');
  assert.equal([img.width, img.height], [8, 6]);
  assert.ok(img.buffer.equals(PNG));
});

test('fetch: relative and absolute redirects are followed', async () => {
  assert.is((await loadImageInput(`${base}/redirect`, fetchOpts())).format, 'png');
  assert.is((await loadImageInput(`${base}/redirect-abs`, fetchOpts())).format, 'png');
});

test('fetch: redirect loop → 400 after maxRedirects', async () => {
  const before = hitsTo('/loop');
  await rejects(
    loadImageInput(`${base}/loop`, fetchOpts({ maxRedirects: 3 })),
    'invalid_input',
    /redirected too many times \(more than 3\)/,
  );
  assert.is(hitsTo('/loop') - before, 4, 'the first request plus 3 redirects');
  await rejects(loadImageInput(`${base}/redirect`, fetchOpts({ maxRedirects: 0 })), 'invalid_input', /too many/);
});

test('fetch: redirect to a non-http(s) URL → 400', async () => {
  await rejects(loadImageInput(`${base}/redirect-file`, fetchOpts()), 'invalid_input', /not http\(s\)/);
});

test('fetch: 404 and a 302 without Location → 422 with the status', async () => {
  await rejects(loadImageInput(`${base}/missing`, fetchOpts()), 'unprocessable', /could not fetch image: .*404/);
  await rejects(
    loadImageInput(`${base}/redirect-no-location`, fetchOpts()),
    'unprocessable',
    /could not fetch image: .*302/,
  );
});

test('fetch: non-image bytes → 422', async () => {
  await rejects(loadImageInput(`${base}/text`, fetchOpts()), 'unprocessable', /image could not be decoded/);
});

test('fetch: streamed body over maxBytes → 413 and the download is cut off', async () => {
  await rejects(
    loadImageInput(`${base}/huge`, fetchOpts({ maxBytes: 256 * 1024 })),
    'too_large',
    /^image is larger than 256 KB$/,
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.not.ok(hugeFinished, 'the server never got to send all 16 MB');
  await rejects(
    loadImageInput(`${base}/huge-declared`, fetchOpts({ maxBytes: 1024 * 1024 })),
    'too_large',
    /^image is larger than 1 MB$/,
  );
});

test('fetch: slow body, no answer and slow DNS → 422 timed out', async () => {
  for (const p of ['/slow', '/hang']) {
    const t0 = Date.now();
    await rejects(
      loadImageInput(`${base}${p}`, fetchOpts({ timeoutMs: 300 })),
      'unprocessable',
      /^could not fetch image: timed out$/,
    );
    assert.ok(Date.now() - t0 < 1500, `${p} took ${Date.now() - t0} ms`);
  }
  const never: LookupFn = () => new Promise(() => {});
  await rejects(
    loadImageInput('http://slow-dns.example/a.png', { allowPrivate: false, lookup: never, timeoutMs: 200 }),
    'unprocessable',
    /timed out/,
  );
});

test('fetch: connection refused → 422', async () => {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const closedPort = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  await rejects(
    loadImageInput(`http://127.0.0.1:${closedPort}/a.png`, fetchOpts()),
    'unprocessable',
    /could not fetch image: ECONNREFUSED/,
  );
});

// --- DNS pinning ----------------------------------------------------------------------

test('pinning: connects to the address the lookup returned, keeps the Host name, resolves once', async () => {
  const { lookup, calls } = fakeDns({ 'pinned.example': ['127.0.0.1'] });
  const img = await loadImageInput(`http://pinned.example:${port}/png`, { allowPrivate: true, lookup });
  assert.is(img.format, 'png');
  assert.equal(calls, ['pinned.example'], 'resolved exactly once (by the guard); the socket reused that answer');
  assert.is(hits[hits.length - 1].host, `pinned.example:${port}`);
});

test('pinning: httpFetchHop never resolves the URL host itself', async () => {
  // dns.lookup is a tripwire here: a second resolution would throw.
  const res = await httpFetchHop({
    url: new URL(`http://never-resolved.example:${port}/png`),
    addresses: [{ address: '127.0.0.1', family: 4 }],
    signal: new AbortController().signal,
    maxBytes: 1024 * 1024,
  });
  assert.is(res.status, 200);
  assert.ok(res.body?.equals(PNG));
});

test('pinning: a name that rebinds after the check is still fetched from the checked address', async () => {
  let n = 0;
  const rebinding: LookupFn = async () => [{ address: n++ === 0 ? PUBLIC_IP : '127.0.0.1', family: 4 }];
  const { fetcher, seen } = hybridFetcher(); // throws if handed anything but PUBLIC_IP
  const { buffer } = await fetchImageUrl(
    new URL(`http://rebind.example:${port}/png`),
    { allowPrivate: false, lookup: rebinding },
    fetcher,
  );
  assert.ok(buffer.equals(PNG));
  assert.is(n, 1, 'one resolution per hop');
  assert.is(seen.length, 1);
});

// --- redirect re-check on every hop ---------------------------------------------------

test('redirects: every hop is re-validated; a public site redirecting inward is refused before the second request', async () => {
  const dnsTable = { 'public.example': [PUBLIC_IP], 'inside.example': ['10.0.0.5'] };
  const targets: Array<[string, RegExp]> = [
    ['/redirect-loopback', /"127\.0\.0\.1"/],
    ['/redirect-localhost', /"localhost"/],
    ['/redirect-metadata', /"169\.254\.169\.254"/],
    ['/redirect-mapped', /not allowed/],
    ['/redirect-rebind', /"inside\.example"/],
  ];
  for (const [p, hostPattern] of targets) {
    const { lookup, calls } = fakeDns(dnsTable);
    const { fetcher, seen } = hybridFetcher();
    const before = hits.length;
    const e = await rejects(
      fetchImageUrl(new URL(`http://public.example:${port}${p}`), { allowPrivate: false, lookup }, fetcher),
      'invalid_input',
      /not allowed/,
    );
    assert.match(e.message, hostPattern);
    assert.equal(seen, [`http://public.example:${port}${p}`], `${p}: only the first hop was fetched`);
    assert.is(hits.length - before, 1, `${p}: the server saw exactly one request`);
    assert.is(hits[hits.length - 1].host, `public.example:${port}`);
    assert.is(calls[0], 'public.example');
  }
});

test('redirects: public → public hops pass the re-check and resolve each hop', async () => {
  const { lookup, calls } = fakeDns({ 'public.example': [PUBLIC_IP] });
  const { fetcher, seen } = hybridFetcher();
  const { buffer } = await fetchImageUrl(
    new URL(`http://public.example:${port}/redirect`),
    { allowPrivate: false, lookup },
    fetcher,
  );
  assert.ok(buffer.equals(PNG));
  assert.equal(seen, [`http://public.example:${port}/redirect`, `http://public.example:${port}/png`]);
  assert.equal(calls, ['public.example', 'public.example']);
});

test('redirects: the loop limit also applies through the re-checking loop', async () => {
  const { lookup } = fakeDns({ 'public.example': [PUBLIC_IP] });
  const { fetcher, seen } = hybridFetcher();
  await rejects(
    fetchImageUrl(
      new URL(`http://public.example:${port}/loop`),
      { allowPrivate: false, lookup, maxRedirects: 2 },
      fetcher,
    ),
    'invalid_input',
    /too many/,
  );
  assert.is(seen.length, 3);
});

// --- own files --------------------------------------------------------------------------

test('own files: read from disk before any DNS or HTTP, also as a redirect target', async () => {
  const resolveOwnFile = async (url: URL) => (url.pathname === '/files/own.png' ? ownFile : null);
  const before = hits.length;
  const img = await loadImageInput(`${base}/files/own.png`, { allowPrivate: false, lookup: noDns, resolveOwnFile });
  assert.is(img.source, 'own-file');
  assert.is(img.format, 'png');
  assert.is(hits.length, before, 'no HTTP request');

  const named = await loadImageInput('https://library.example/files/own.png', {
    allowPrivate: false,
    lookup: noDns,
    resolveOwnFile,
  });
  assert.is(named.source, 'own-file');

  // Other URLs on the same host are not own files and get the normal guard.
  await rejects(
    loadImageInput(`${base}/png`, { allowPrivate: false, lookup: noDns, resolveOwnFile }),
    'invalid_input',
    /not allowed/,
  );

  // A public page redirecting to one of our file URLs: served from disk, not fetched.
  const { lookup } = fakeDns({ 'public.example': [PUBLIC_IP] });
  const { fetcher, seen } = hybridFetcher();
  const res = await fetchImageUrl(
    new URL(`http://public.example:${port}/redirect-own`),
    { allowPrivate: false, lookup, resolveOwnFile },
    fetcher,
  );
  assert.ok(res.ownFile);
  assert.ok(res.buffer.equals(PNG));
  assert.is(seen.length, 1);
});

test('own files: size cap → 413', async () => {
  const resolveOwnFile = async () => ownFile;
  await rejects(
    loadImageInput(`${base}/files/own.png`, { allowPrivate: false, resolveOwnFile, maxBytes: 10 }),
    'too_large',
    /^image is larger than 10 bytes$/,
  );
});

test.run();
