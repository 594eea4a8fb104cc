/**
 * The library feature's public API for other features (the watched folders import through it, as an
 * upload through the API would).
 */
export { uploadMedia, type UploadInput } from './upload.js';
export { createFolder } from './folders.js';
export { deleteMedia } from './media.js';
export { lookupContent } from './lookup.js';
export { browseScopeOf, type BrowseParams } from './browse.js';
export { rereadMetadata } from './rereadMetadata.js';
