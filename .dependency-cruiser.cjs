/**
 * Layer rules for src/ (run by .ci/run through `npm run lint`). ARCHITECTURE.md
 * draws the layers; these rules keep the code in them:
 *   app.ts/main.ts (composition root) -> features -> index, storage, models, jobs, files, http edge -> platform
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'web-app-talks-only-http',
      severity: 'error',
      comment: 'The web application (web/) reaches the server only through the public HTTP API, never by importing it.',
      from: { path: '^web/' },
      to: { path: '^(src|scripts|test)/' },
    },
    {
      name: 'server-never-imports-the-web-app',
      severity: 'error',
      comment: 'The server serves the built web application as files; it imports none of its code.',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles: every module can be read after the ones it imports.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lower-layers-never-import-features',
      severity: 'error',
      comment: 'index, storage, models, jobs, files and platform serve the features; they never reach up into one.',
      from: { path: '^src/(index|storage|models|jobs|files|platform)/' },
      to: { path: '^src/features/' },
    },
    {
      name: 'http-edge-knows-only-the-kernel',
      severity: 'error',
      comment:
        'The request edge (route definitions, error mapping, OpenAPI) sees the Services and Principal types, no feature.',
      from: { path: '^src/http/' },
      to: { path: '^src/features/', pathNot: '^src/features/kernel/' },
    },
    {
      name: 'nothing-imports-the-composition-root',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/(app|main)\\.ts$' },
    },
    {
      name: 'index-packages-stand-alone',
      severity: 'error',
      comment:
        'The search indexes know nothing of the relational stores or the features (storage may use their types).',
      from: { path: '^src/index/' },
      to: { path: '^src/(storage|features|models|jobs|files|http)/' },
    },
    {
      name: 'storage-below-models-jobs-files',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^src/(models|files|http|jobs/runner)' },
    },
    {
      name: 'features-use-each-other-only-through-their-index',
      severity: 'error',
      comment:
        "A feature imports another feature only through that feature's index.ts (its public API); the kernel is shared by all.",
      from: { path: '^src/features/([^/]+)/' },
      to: {
        path: '^src/features/([^/]+)/',
        pathNot: ['^src/features/$1/', '^src/features/kernel/', '^src/features/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'kernel-imports-no-feature',
      severity: 'error',
      from: { path: '^src/features/kernel/' },
      to: { path: '^src/features/(?!kernel/)' },
    },
    {
      name: 'stand-ins-only-under-the-test-profile',
      severity: 'error',
      comment:
        'Stand-in model generators are loaded by a dynamic import taken only when MODEL_PROFILE=test; production code may import their types.',
      from: { path: '^src/', pathNot: '^src/models/standins/' },
      to: { path: '^src/models/standins/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'cli-is-an-http-client',
      severity: 'error',
      comment:
        "The command-line clients (src/cli) talk to the server through its public HTTP API only, so they work against a remote server and under the key's role: platform helpers at most.",
      from: { path: '^src/cli/' },
      to: { path: '^src/(?!cli/|platform/)' },
    },
    {
      name: 'nothing-in-the-server-imports-the-cli',
      severity: 'error',
      from: { path: '^src/(?!cli/)' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
