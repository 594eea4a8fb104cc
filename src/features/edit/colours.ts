import type { Rgb } from './types.js';

/** Colour words the parser understands (British and American spellings). */
export const NAMED_COLOURS: Record<string, Rgb> = {
  white: { r: 255, g: 255, b: 255 },
  black: { r: 0, g: 0, b: 0 },
  red: { r: 220, g: 30, b: 30 },
  green: { r: 40, g: 160, b: 60 },
  blue: { r: 30, g: 90, b: 220 },
  yellow: { r: 250, g: 215, b: 40 },
  orange: { r: 245, g: 140, b: 30 },
  purple: { r: 130, g: 50, b: 170 },
  violet: { r: 140, g: 80, b: 200 },
  pink: { r: 245, g: 160, b: 190 },
  grey: { r: 128, g: 128, b: 128 },
  gray: { r: 128, g: 128, b: 128 },
  silver: { r: 192, g: 192, b: 192 },
  brown: { r: 120, g: 80, b: 45 },
  beige: { r: 230, g: 215, b: 185 },
  cream: { r: 250, g: 245, b: 225 },
  ivory: { r: 255, g: 255, b: 240 },
  gold: { r: 212, g: 175, b: 55 },
  cyan: { r: 0, g: 200, b: 220 },
  turquoise: { r: 64, g: 224, b: 208 },
  teal: { r: 0, g: 128, b: 128 },
  magenta: { r: 220, g: 0, b: 220 },
  navy: { r: 20, g: 30, b: 90 },
  'sky blue': { r: 135, g: 206, b: 235 },
  'light blue': { r: 173, g: 216, b: 230 },
  'dark blue': { r: 0, g: 30, b: 120 },
  'light grey': { r: 211, g: 211, b: 211 },
  'light gray': { r: 211, g: 211, b: 211 },
  'dark grey': { r: 64, g: 64, b: 64 },
  'dark gray': { r: 64, g: 64, b: 64 },
  'dark green': { r: 0, g: 90, b: 30 },
  'light green': { r: 144, g: 238, b: 144 },
  transparent: { r: 0, g: 0, b: 0, alpha: 0 },
};

/** Regex source matching a colour: a name (longest first) or #rgb / #rrggbb. */
export const COLOUR_PATTERN = `(?:#[0-9a-f]{6}\\b|#[0-9a-f]{3}\\b|${Object.keys(NAMED_COLOURS)
  .sort((a, b) => b.length - a.length)
  .map((n) => n.replace(' ', '[ -]'))
  .join('|')})`;

/** The colour a matched word names, or null. */
export function parseColour(text: string): Rgb | null {
  const t = text.trim().toLowerCase().replace(/-/g, ' ');
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(t);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
    return { r: parseInt(h.slice(0, 2), 16), g: parseInt(h.slice(2, 4), 16), b: parseInt(h.slice(4, 6), 16) };
  }
  // Own names only: `constructor` or `toString` is no colour (issue #29).
  return Object.hasOwn(NAMED_COLOURS, t) ? NAMED_COLOURS[t] : null;
}
