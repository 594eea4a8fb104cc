/**
 * Greedy CTC decoding for PP-OCR recognition output: per time step the most
 * probable class; repeats collapse, blanks (class 0) drop. The character table
 * is the key file (one character a line) with the blank in front and a space
 * appended as the last class, as PaddleOCR builds it (use_space_char).
 */
import { readFileSync } from 'node:fs';

export interface Decoded {
  text: string;
  /** Mean of the kept characters' probabilities (0 when nothing was read). */
  score: number;
  /** Per kept character, its probability. */
  charScores: number[];
}

/** Reads a PaddleOCR key file into the class table: ['', ...keys, ' ']. */
export function loadCharset(keysPath: string): string[] {
  return charsetFromText(readFileSync(keysPath, 'utf8'));
}

export function charsetFromText(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return ['', ...lines, ' '];
}

/**
 * Decodes one sequence from `probs` laid out [T, C] starting at `offset`
 * (so a batch output [B, T, C] decodes with offset = b·T·C).
 */
export function ctcGreedyDecode(
  probs: Float32Array,
  steps: number,
  classes: number,
  charset: readonly string[],
  offset = 0,
): Decoded {
  let text = '';
  const charScores: number[] = [];
  let prev = -1;
  for (let t = 0; t < steps; t++) {
    const base = offset + t * classes;
    let best = 0,
      bestP = probs[base];
    for (let c = 1; c < classes; c++) {
      const p = probs[base + c];
      if (p > bestP) {
        bestP = p;
        best = c;
      }
    }
    if (best !== 0 && best !== prev) {
      text += charset[best] ?? '';
      charScores.push(bestP);
    }
    prev = best;
  }
  const score = charScores.length ? charScores.reduce((a, b) => a + b, 0) / charScores.length : 0;
  return { text, score, charScores };
}
