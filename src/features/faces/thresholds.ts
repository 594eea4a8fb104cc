/**
 * The face clustering thresholds the models declare: each face embedder's
 * catalog `clusterThreshold`, keyed by its catalog name (the prefix of its
 * model ids); in the test profile the stand-in's own.
 */
import type { ThresholdTable } from '../../index/faces/thresholds.js';
import type { VisionModels } from '../../models/index.js';

/** Catalog name → declared join threshold, for every model that declares one. */
export function declaredThresholds(models: Pick<VisionModels, 'listModels'>): ThresholdTable {
  const table: Record<string, number> = {};
  for (const info of models.listModels()) if (info.clusterThreshold !== null) table[info.name] = info.clusterThreshold;
  return table;
}
