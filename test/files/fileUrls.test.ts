import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileUrls, SIG_LENGTH } from '../../src/files/fileUrls.js';
import { withRequestOrigin } from '../../src/platform/requestOrigin.js';

const key = `${'ab'.repeat(32)}.jpg`;
const urls = new FileUrls('s3cret', 'https://media.example.org/');

test('urlFor builds /files/<sig>/<key>[/<name>] under the public URL', () => {
  const sig = urls.sign(key);
  assert.is(sig.length, SIG_LENGTH);
  assert.match(sig, /^[A-Za-z0-9_-]{22}$/);
  assert.is(urls.urlFor(key), `https://media.example.org/files/${sig}/${key}`);
  assert.is(urls.urlFor(key, 'my photo #1.jpg'), `https://media.example.org/files/${sig}/${key}/my%20photo%20%231.jpg`);
});

test('signatures are stable (permanent URLs) and depend on secret and key', () => {
  assert.is(new FileUrls('s3cret', 'http://x').sign(key), urls.sign(key));
  assert.is.not(new FileUrls('other', 'http://x').sign(key), urls.sign(key));
  assert.is.not(urls.sign(`${'ab'.repeat(32)}.png`), urls.sign(key));
});

test('verify accepts the right signature and refuses tampering', () => {
  const sig = urls.sign(key);
  assert.ok(urls.verify(sig, key));
  const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
  assert.not.ok(urls.verify(flipped, key));
  assert.not.ok(urls.verify(sig, `${'ab'.repeat(32)}.png`));
  assert.not.ok(urls.verify(sig.slice(0, 21), key));
  assert.not.ok(urls.verify(sig + 'A', key));
  assert.not.ok(urls.verify('', key));
  assert.not.ok(new FileUrls('other', 'http://x').verify(sig, key));
});

test('an empty secret is refused', () => {
  assert.throws(() => new FileUrls('', 'http://x'));
});

test('remembered signatures: the same URLs as signing afresh, the memory bounded', () => {
  const u = new FileUrls('s3cret', 'https://media.example.org');
  const keyOf = (i: number) => `${i.toString(16).padStart(64, '0')}.jpg`;
  const first = u.urlFor(keyOf(0), 'a.jpg');
  assert.is(first, `https://media.example.org/files/${u.sign(keyOf(0))}/${keyOf(0)}/a.jpg`);
  assert.is(u.urlFor(keyOf(0)), `https://media.example.org/files/${u.sign(keyOf(0))}/${keyOf(0)}`, 'a remembered key');
  assert.is(
    u.urlIn('out', keyOf(0)),
    `https://media.example.org/files/out/${u.sign(`out/${keyOf(0)}`)}/${keyOf(0)}`,
    'namespaced keys are signed apart',
  );
  for (let i = 1; i <= 20_001; i++) u.urlFor(keyOf(i));
  const remembered = (u as unknown as { signed: Map<string, string> }).signed;
  assert.ok(remembered.size <= 20_000, String(remembered.size));
  assert.is(u.urlFor(keyOf(0), 'a.jpg'), first, 'forgotten, then signed again the same');
  assert.ok(u.verify(u.sign(keyOf(7)), keyOf(7)));
  // verify never fills the memory: clients choose the keys it sees.
  const fresh = new FileUrls('s3cret', 'https://media.example.org');
  fresh.verify('A'.repeat(22), `${'ff'.repeat(32)}.jpg`);
  assert.ok(fresh.verify(fresh.sign(keyOf(1)), keyOf(1)));
  assert.is((fresh as unknown as { signed: Map<string, string> }).signed.size, 0);
});

test('without a public URL: the current request origin, else the fallback; a public URL always wins', () => {
  const lan = new FileUrls('s3cret', undefined, 'http://localhost:3000/');
  const sig = lan.sign(key);
  assert.is(lan.urlFor(key), `http://localhost:3000/files/${sig}/${key}`);
  assert.is(
    withRequestOrigin('http://192.168.1.20:3000', () => lan.urlFor(key)),
    `http://192.168.1.20:3000/files/${sig}/${key}`,
  );
  assert.is(
    withRequestOrigin('http://192.168.1.20:3000', () => urls.origin()),
    'https://media.example.org',
  );
});

test.run();
