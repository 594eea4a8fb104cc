import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clusterPayload } from '../../../src/features/ingest/jobs.js';

test('cluster-faces payloads: the current shape and the one queued before the rename both parse', () => {
  const id = '0b7c9a3e-4a59-4b0e-9d0f-2f2a8c1e5d11';
  assert.equal(clusterPayload.parse({ collectionId: id }), { collectionId: id });
  assert.equal(clusterPayload.parse({ collectionId: null }), { collectionId: null });
  assert.equal(clusterPayload.parse({ datasetId: id }), { collectionId: id });
  assert.equal(clusterPayload.parse({ datasetId: null }), { collectionId: null });
  assert.throws(() => clusterPayload.parse({}));
});

test.run();
