/**
 * Test helpers for the face clusterer: cluster a list of vectors in order,
 * and compare two labelings.
 */
import { OnlineClusterer, type ClusterOptions } from '../../src/index/faces/clusterer.js';

/**
 * Clusters a list of unit vectors in the given order: the label (cluster
 * index, 0-based in order of first appearance) of each. For tests and tools.
 */
export function clusterVectors(vectors: ArrayLike<number>[], opts: ClusterOptions): number[] {
  if (vectors.length === 0) return [];
  let n = 0;
  const c = new OnlineClusterer(vectors[0].length, opts, () => `c${n++}`);
  const assigned: string[] = [];
  const redirect = new Map<string, string>();
  for (let i = 0; i < vectors.length; i++) {
    const r = c.add(String(i), vectors[i]);
    for (const m of r.merges) redirect.set(m.from, m.into);
    assigned.push(r.clusterId);
  }
  const final = (id: string): string => {
    let x = id;
    while (redirect.has(x)) x = redirect.get(x)!;
    return x;
  };
  const labels = new Map<string, number>();
  return assigned.map((id) => {
    const f = final(id);
    if (!labels.has(f)) labels.set(f, labels.size);
    return labels.get(f)!;
  });
}

/**
 * Pairwise agreement of two labelings of the same items (the Rand index):
 * the share of pairs that both put together or both keep apart. 1 = the same partition.
 */
export function randIndex(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error('labelings differ in length');
  let agree = 0;
  let pairs = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) {
      pairs++;
      if ((a[i] === a[j]) === (b[i] === b[j])) agree++;
    }
  }
  return pairs ? agree / pairs : 1;
}
