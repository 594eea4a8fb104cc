/** The faces feature's public API: what other features (ingest, library) may use. */
export { CLUSTER_FACES_JOB, clusterFacesJob, type ClusterFacesPayload } from './clusterFacesJob.js';
export { declaredThresholds } from './thresholds.js';
export { listClusters } from './listClusters.js';
