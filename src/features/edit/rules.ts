/**
 * The phrase rules of the instruction parser: each is a regular expression
 * over the normalised prompt (lower case, see parse.ts) and a builder that
 * turns a match into operations. Rules are tried in the order of RULES; a
 * later rule never takes text an earlier one already took, so specific
 * phrases ("blur the background", "no background", "black and white") come
 * before the general words inside them ("blur", "no", "and").
 */
import { C, colour, WHITE, type Rule } from './ruleFragments.js';
import { backgroundBlur, backgroundRemove, backgroundReplace } from './backgroundRules.js';
import { GEOMETRY_RULES } from './geometryRules.js';
import { greyscale, noir, TONE_RULES } from './toneRules.js';
import type { OutputFormat } from './types.js';

export type { Rule };

const negation: Rule = {
  name: 'negation',
  ignore: true,
  re: /\b(?:don'?t|do\s+not|never|without|no\s+need\s+to|avoid|but\s+not|not|no)\b[^,.;!]*?(?=$|[,.;!]|\s+(?:and|then|but|also|plus)\b)/g,
  build: () => [],
};

const border: Rule = {
  name: 'border',
  re: new RegExp(
    String.raw`\b(?:(?:add(?:ing)?|put|draw|place|apply|with|give\s+it|surround\s+it\s+with)\s+)?(?:an?\s+|the\s+)?` +
      String.raw`(?:(\d+)\s*-?\s*(px|pixels?|%|percent)\s+)?` +
      String.raw`(?:(thin|thick|wide|narrow|small|big|large|fat|heavy|subtle|bold)\s+)?(?:${C}\s+)?` +
      String.raw`(?:(\d+)\s*-?\s*(px|pixels?|%|percent)\s+)?` +
      String.raw`(?:border|frame|outline|padding|passe[- ]partout)(?:ed)?` +
      String.raw`(?:\s+around\s+(?:it|the\s+(?:image|photo|picture)))?` +
      String.raw`(?:\s+(?:of|that\s+is|which\s+is|at)?\s*(\d+)\s*(px|pixels?|%|percent)(?:\s+(?:wide|thick))?)?` +
      String.raw`(?:\s+(?:in|of|colou?red)?\s*${C})?` +
      String.raw`(?:\s+around\s+(?:it|the\s+(?:image|photo|picture)))?` +
      String.raw`|\bframe\s+it\b(?:\s+(?:in|with)\s+${C})?`,
    'g',
  ),
  build: (m) => {
    const n = m[1] ?? m[5] ?? m[7];
    const unit = m[2] ?? m[6] ?? m[8];
    const thickness = m[3];
    let size = 3;
    let u: 'px' | 'percent' = 'percent';
    if (n !== undefined) {
      size = Number(n);
      u = unit && /%|percent/.test(unit) ? 'percent' : 'px';
    } else if (thickness) {
      size = /thin|narrow|small|subtle/.test(thickness) ? 1 : 6;
    }
    if (u === 'percent') size = Math.min(size, 50);
    else size = Math.min(size, 2000);
    return [{ op: 'border', size, unit: u, color: colour(m[4] ?? m[9] ?? m[10], WHITE) }];
  },
};

const format: Rule = {
  name: 'format',
  re: new RegExp(
    String.raw`\b(?:(?:convert|change|save|export|output|encode|turn|make|write|give\s+me)` +
      String.raw`(?:\s+(?:it|this|the\s+(?:image|file|photo|picture)))?\s+)?(?:(?:to|as|into|in)\s+)?(?:an?\s+)?` +
      String.raw`(png|jpe?g|webp)\b(?:\s+(?:format|file|image))?`,
    'g',
  ),
  build: (m) => [{ op: 'format', format: (m[1].startsWith('jp') ? 'jpg' : m[1]) as OutputFormat }],
};

export const RULES: Rule[] = [
  // Background removal first: "no background" / "without background" must not be read as negations.
  backgroundRemove,
  noir,
  greyscale,
  negation,
  backgroundBlur,
  backgroundReplace,
  // --- geometry and size ---
  ...GEOMETRY_RULES,
  // --- grades, adjustments and detail ---
  ...TONE_RULES,
  border,
  // --- output format ---
  format,
];
