import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileUrls, SIG_LENGTH } from '../../src/files/fileUrls.js';

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

test.run();
