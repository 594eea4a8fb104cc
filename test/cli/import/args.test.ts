/** The importer's command line, name rules and progress line (no server). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs, UsageError } from '../../../src/cli/import/args.js';
import { createProgress, progressLine } from '../../../src/cli/import/progress.js';
import { isSkippedName, looksLikeMedia } from '../../../src/platform/mediaNames.js';

const t = suite('import: args and progress');

t('defaults: server from PORT, key from LUMEN_API_KEY, concurrency 4; --key and --server win', () => {
  const o = parseArgs(['photos'], { PORT: '4000', LUMEN_API_KEY: 'k1', DATA_DIR: '/nonexistent' });
  assert.is(o.server, 'http://localhost:4000');
  assert.is(o.key, 'k1');
  assert.is(o.concurrency, 4);
  assert.is(o.into, '');
  assert.not.ok(o.dryRun);
  const p = parseArgs(
    ['d', '--server=http://x:1/', '--key', 'k2', '--into', ' A // B ', '--dry-run', '--concurrency', '8'],
    {
      LUMEN_API_KEY: 'k1',
    },
  );
  assert.equal([p.server, p.key, p.into, p.dryRun, p.concurrency], ['http://x:1', 'k2', 'A/B', true, 8]);
});

t('usage errors', () => {
  const env = { LUMEN_API_KEY: 'k' };
  for (const argv of [[], ['a', 'b'], ['a', '--bogus'], ['a', '--concurrency', '0'], ['a', '--key']])
    assert.throws(
      () => parseArgs(argv, env),
      (e: unknown) => e instanceof UsageError,
      JSON.stringify(argv),
    );
  assert.throws(() => parseArgs(['a'], { DATA_DIR: '/nonexistent' }), /no API key/);
});

t('name rules: hidden and housekeeping skipped; media by extension', () => {
  for (const n of ['.DS_Store', '@eaDir', '.thumbnails', 'Thumbs.db', '#recycle']) assert.ok(isSkippedName(n), n);
  assert.not.ok(isSkippedName('IMG_1.JPG'));
  assert.ok(looksLikeMedia('a/b/IMG_1.JPG') && looksLikeMedia('clip.mov') && looksLikeMedia('x.heic'));
  assert.not.ok(looksLikeMedia('notes.txt') || looksLikeMedia('README'));
  assert.ok(
    ['a.CR3', 'b.dng', 'c.NEF', 'd.arw', 'e.HIF', 'f.avi', 'g.3gp'].every((n) => looksLikeMedia(n)),
    'RAW, HEIF, AVI, 3GP',
  );
});

t('progress: counts, bytes, rate and ETA; plain lines off a terminal, one redrawn line on one', () => {
  const c = { total: 10, totalBytes: 10_000_000, uploaded: 4, skipped: 1, failed: 0, bytes: 4_000_000 };
  const line = progressLine(c, 2000);
  assert.match(line, '5/10 (4 uploaded, 1 skipped, 0 failed)');
  assert.match(line, '4.0 MB/10.0 MB');
  assert.match(line, '2.0 files/s');
  assert.match(line, '2.0 MB/s');
  assert.match(line, 'ETA 3 s');
  const plain: string[] = [];
  const p = createProgress({ isTTY: false, write: (s: string) => plain.push(s) }, { logEveryMs: 60_000 });
  p.update(c);
  p.update(c);
  p.finish(c);
  assert.is(plain.length, 1);
  assert.ok(plain[0].endsWith('\n'));
  const tty: string[] = [];
  createProgress({ isTTY: true, write: (s: string) => tty.push(s) }).finish(c);
  assert.ok(tty[0].startsWith('\r[') && tty.at(-1) === '\n');
});

t.run();
