/**
 * The hand-over point for instructions the local editor cannot carry out
 * ("add a dragon"). Such an edit needs an instruction-following image-to-image
 * model (an InstructPix2Pix- or Kontext-like editor). The text-to-image model
 * the server may have (`roles().generate`, Janus-Pro) draws a new picture from
 * text only; it cannot change a given photo, so it is not used here: handing
 * it an edit would answer with an unrelated image. Until an editing model is
 * added, canGenerate is false and such prompts get a 422 listing what the
 * local editor can do.
 */
import type { Services } from '../domain/services.js';

/** Whether a generative image editor can take prompts the local editor does not understand. */
export function canGenerate(_s: Services): boolean {
  return false;
}
