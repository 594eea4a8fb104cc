/** Air-gapped model bundles: `npm run models -- pack` on an online machine, `import` on the offline one. */
export { BundleError, importBundle, type ImportOptions, type ImportResult } from './import.js';
export { BUNDLE_FORMAT, BUNDLE_VERSION, MANIFEST_NAME, parseManifest, type Manifest } from './manifest.js';
export { packBundle, type PackOptions, type PackResult } from './pack.js';
