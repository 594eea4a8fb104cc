/**
 * Which join threshold face clustering uses for a face model. Thresholds are
 * model facts: each face embedder declares its own in the model catalog
 * (models/catalog.json, `clusterThreshold`), the FACE_CLUSTER_THRESHOLDS
 * setting overrides them, and both are keyed by model-id prefix because a
 * face model's id is its catalog name and a hash of its weights (`sface:<sha12>`).
 */

/** Model-id prefix → threshold; the longest prefix matching a model id wins. */
export type ThresholdTable = Readonly<Record<string, number>>;

/** Any face model that declares no threshold, until it is measured. */
export const DEFAULT_CLUSTER_THRESHOLD = 0.5;

/** The longest prefix of `modelId` in `table`, or null. */
function longestPrefix(modelId: string, table: ThresholdTable): string | null {
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    if (modelId.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
  }
  return best;
}

/**
 * The join threshold for a model id: the longest matching prefix in
 * `overrides` (the setting), then in `declared` (the models' own), else
 * DEFAULT_CLUSTER_THRESHOLD.
 */
export function faceClusterThreshold(
  modelId: string,
  overrides: ThresholdTable = {},
  declared: ThresholdTable = {},
): number {
  for (const table of [overrides, declared]) {
    const prefix = longestPrefix(modelId, table);
    if (prefix !== null) return table[prefix];
  }
  return DEFAULT_CLUSTER_THRESHOLD;
}
