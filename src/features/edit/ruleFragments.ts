/**
 * The pieces the phrase rules (./rules.ts) are written with: regular
 * expression fragments (objects, colours, numbers, intensity words, aspect
 * ratios, subjects), the comparative and noun vocabularies of adjustments,
 * and the helpers that turn matched words into strengths, colours, aspect
 * ratios and adjustment factors.
 */
import { COLOUR_PATTERN, parseColour } from './colours.js';
import type { EditOperation, Rgb } from './types.js';

/** One phrase rule: see ./rules.ts. */
export interface Rule {
  /** Short name, for debugging and tests. */
  name: string;
  re: RegExp;
  /**
   * Operations for one match. An empty list takes the text without an
   * operation (negations, "rotate 0 degrees"); null declines the match, so the
   * text stays free for later rules.
   */
  build(m: RegExpExecArray): EditOperation[] | null;
  /** Text a rule matched but chose to drop (negations) is reported as ignored. */
  ignore?: boolean;
}

export const OBJ = String.raw`(?:\s+(?:it|this|that|the\s+(?:whole\s+|entire\s+)?(?:image|photo|picture|pic|shot)|everything))?`;
export const BG = String.raw`back\s?grounds?`;
export const C = `(${COLOUR_PATTERN})`;
export const NUM = String.raw`(\d+(?:\.\d+)?)`;
const STRONG =
  String.raw`(?:much|a\s+lot|lots|way|significantly|considerably|very|really|far|strongly|heavily` +
  String.raw`|dramatically|a\s+great\s+deal|extremely|super)`;
const WEAK =
  String.raw`(?:slightly|a\s+(?:little\s+)?bit|a\s+little|a\s+touch|somewhat|marginally|subtly|a\s+tad|mildly` +
  String.raw`|gently|lightly|a\s+hint)`;
export const INTENSITY = `(${STRONG}|${WEAK})`;
export const AMOUNT = String.raw`(?:\s+by\s+${NUM}\s*(?:%|percent))`;
const ASPECT_WORDS: Record<string, [number, number]> = {
  square: [1, 1],
  widescreen: [16, 9],
  landscape: [4, 3],
  portrait: [3, 4],
  panorama: [21, 9],
  panoramic: [21, 9],
  cinematic: [21, 9],
  story: [9, 16],
  instagram: [1, 1],
};
export const ASPECT =
  String.raw`(?:(\d+(?:\.\d+)?)\s*(?::|x|by|/)\s*(\d+(?:\.\d+)?)` +
  String.raw`|(square|widescreen|landscape|portrait|panoram(?:a|ic)|cinematic|story|instagram))`;
export const SUBJECT =
  String.raw`(?:the\s+)?(?:main\s+)?(?:subject|person|people|object|face|focus|product|foreground` +
  String.raw`|centre\s+of\s+interest|center\s+of\s+interest|important\s+part)`;

/** Intensity word → which of three strengths. */
export function strength(word: string | undefined): 'weak' | 'normal' | 'strong' {
  if (!word) return 'normal';
  if (new RegExp(`^${STRONG}$`).test(word.trim())) return 'strong';
  if (new RegExp(`^${WEAK}$`).test(word.trim())) return 'weak';
  return 'normal';
}

export const pick = (s: 'weak' | 'normal' | 'strong', weak: number, normal: number, strong: number) =>
  s === 'weak' ? weak : s === 'strong' ? strong : normal;

export function colour(text: string | undefined, fallback: Rgb): Rgb {
  return (text && parseColour(text)) || fallback;
}

export function aspectOf(
  a: string | undefined,
  b: string | undefined,
  word: string | undefined,
): [number, number] | null {
  if (word) {
    const key = word.startsWith('panoram') ? 'panorama' : word;
    return Object.hasOwn(ASPECT_WORDS, key) ? ASPECT_WORDS[key] : null;
  }
  const w = Number(a);
  const h = Number(b);
  return w > 0 && h > 0 && w / h <= 10 && h / w <= 10 ? [w, h] : null;
}

export const WHITE: Rgb = { r: 255, g: 255, b: 255 };

// --- adjustments --------------------------------------------------------------
export type Prop = 'brightness' | 'contrast' | 'saturation';

/** Multiplier for an adjustment: explicit percent, else by strength. */
export function factor(prop: Prop, up: boolean, s: 'weak' | 'normal' | 'strong', percent?: string): number {
  const step =
    percent !== undefined
      ? Number(percent) / 100
      : prop === 'saturation'
        ? pick(s, 0.15, 0.3, 0.6)
        : pick(s, 0.1, 0.2, 0.4);
  const f = up ? 1 + step : 1 - step;
  return Math.round(Math.min(4, Math.max(0, f)) * 1000) / 1000;
}

export const adjust = (prop: Prop, value: number): EditOperation => ({ op: 'adjust', [prop]: value });

/** Comparative words and which way they push which property. */
export const COMPARATIVES: Array<[string, Prop, boolean]> = [
  ['brighter', 'brightness', true],
  ['lighter', 'brightness', true],
  ['more\\s+exposed', 'brightness', true],
  ['darker', 'brightness', false],
  ['dimmer', 'brightness', false],
  ['less\\s+bright', 'brightness', false],
  ['more\\s+contrast(?:y)?', 'contrast', true],
  ['higher\\s+contrast', 'contrast', true],
  ['high\\s+contrast', 'contrast', true],
  ['punchier', 'contrast', true],
  ['less\\s+contrast', 'contrast', false],
  ['lower\\s+contrast', 'contrast', false],
  ['low\\s+contrast', 'contrast', false],
  ['flatter', 'contrast', false],
  ['more\\s+saturated', 'saturation', true],
  ['more\\s+vibrant', 'saturation', true],
  ['more\\s+vivid', 'saturation', true],
  ['more\\s+colou?rful', 'saturation', true],
  ['vivid', 'saturation', true],
  ['vibrant', 'saturation', true],
  ['saturated', 'saturation', true],
  ['pop', 'saturation', true],
  ['richer\\s+colou?rs', 'saturation', true],
  ['less\\s+saturated', 'saturation', false],
  ['less\\s+colou?rful', 'saturation', false],
  ['less\\s+vivid', 'saturation', false],
  ['muted', 'saturation', false],
  ['washed[- ]out', 'saturation', false],
  ['desaturated?\\s+(?:it\\s+)?' + WEAK, 'saturation', false],
];

export const NOUN_PROPS: Record<string, Prop> = {
  brightness: 'brightness',
  exposure: 'brightness',
  contrast: 'contrast',
  saturation: 'saturation',
  vibrance: 'saturation',
  colour: 'saturation',
  colours: 'saturation',
  color: 'saturation',
  colors: 'saturation',
};
export const NOUNS = '(brightness|exposure|contrast|saturation|vibrance|colou?rs?)';
export const UP = '(?:increase|raise|boost|more|add|higher|turn\\s+up|bump\\s+up|pump\\s+up|crank\\s+up|up|enhance)';
export const DOWN = '(?:reduce|lower|decrease|less|lessen|turn\\s+down|tone\\s+down|cut|drop|down)';
