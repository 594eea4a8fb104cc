/**
 * The one door to the stand-in generators (src/models/standins): a dynamic
 * import, taken only when MODEL_PROFILE=test, so the generators and their
 * ONNX writer stay out of the production import graph. Production modules
 * import their types only.
 */
import type { Standins } from './standins/index.js';

export type { DetectorStandin, Standins } from './standins/index.js';

/** Loads the stand-in generators (test profile only). */
export async function loadStandins(): Promise<Standins> {
  return (await import('./standins/index.js')).standins;
}
