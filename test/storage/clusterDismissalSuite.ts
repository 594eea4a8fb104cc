/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts): people's dismissed merge
 * suggestions (storage.clusterDismissals), kept per collection, each pair once whatever its order.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newUuid } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';

export function clusterDismissalSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (dismissed people suggestions): ${name}`);

  test('a pair is kept once in its collection, in id order, whichever order it was given in', async () => {
    const s = await open();
    try {
      const [c1, c2] = [newUuid(), newUuid()];
      const user = newUuid();
      assert.equal(await s.clusterDismissals.list(c1), []);
      await s.clusterDismissals.dismiss(c1, 'bbbb', 'aaaa', user);
      await s.clusterDismissals.dismiss(c1, 'aaaa', 'bbbb', user);
      await s.clusterDismissals.dismiss(c1, 'aaaa', 'cccc', user);
      await s.clusterDismissals.dismiss(c2, 'dddd', 'eeee', user);
      assert.equal(await s.clusterDismissals.list(c1), [
        ['aaaa', 'bbbb'],
        ['aaaa', 'cccc'],
      ]);
      assert.equal(await s.clusterDismissals.list(c2), [['dddd', 'eeee']]);
    } finally {
      await s.close();
    }
  });

  test.run();
}
