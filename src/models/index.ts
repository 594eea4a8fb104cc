/**
 * Public surface of the models module. The application needs only
 * `createVisionModels(config, logger)` and the types; the rest is for the
 * models script and tests.
 */
export { createVisionModels, type VisionModelsOptions } from './visionModels.js';
export type {
  CaptionOptions,
  CaptionResult,
  LoadedModel,
  ModelInfo,
  ModelRoles,
  VisionModels,
  ZeroShotScore,
} from './types.js';
export { loadCatalog, type Calibration, type Calibrations, type Catalog, type ModelEntry } from './catalog.js';
export {
  autoFetchOff,
  createModelProvisioner,
  type FetchSummary,
  type ModelProvisioner,
  type ModelReport,
  type ModelState,
} from './provisioner.js';
