import { toRawImage } from '../rawImage.js';

/** Encoded bytes → packed RGB; see toRawImage (shared with the face detector). */
export const decodeRgb = toRawImage;
