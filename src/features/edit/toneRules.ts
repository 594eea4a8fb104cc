/**
 * The colour and tone rules of the instruction parser: the grade presets (noir and greyscale, which
 * ./rules.ts tries early, then sepia, vintage, warm, cool, invert, auto), brightness, contrast and
 * saturation adjustments, and detail (sharpen, blur).
 */
import {
  AMOUNT,
  COMPARATIVES,
  DOWN,
  INTENSITY,
  NOUN_PROPS,
  NOUNS,
  NUM,
  OBJ,
  UP,
  adjust,
  factor,
  pick,
  strength,
  type Rule,
} from './ruleFragments.js';

export const noir: Rule = {
  name: 'noir',
  re: new RegExp(
    String.raw`\b(?:film\s+)?noir\b|\bhigh[- ]contrast\s+` +
      String.raw`(?:black\s*(?:and|&)\s*white|b\s*&\s*w|monochrome|gr[ae]yscale)\b` +
      String.raw`|\bdramatic\s+(?:black\s*(?:and|&)\s*white|b\s*&\s*w)\b`,
    'g',
  ),
  build: () => [{ op: 'grade', preset: 'noir' }],
};

export const greyscale: Rule = {
  name: 'greyscale',
  re: new RegExp(
    String.raw`\b(?:black\s*(?:and|&|n|'n'|\+)\s*white|b\s*&\s*w|b\s*\/\s*w|bnw|gr[ae]y\s*scale|gr[ae]yscale` +
      String.raw`|monochrome|monochromatic|mono|colou?rless` +
      String.raw`|desaturated?(?!\s+(?:it\s+)?(?:slightly|a\s+(?:little\s+)?bit|a\s+little|a\s+touch|somewhat` +
      String.raw`|a\s+tad))|(?:no|without(?:\s+any)?)\s+colou?rs?` +
      String.raw`|(?:remove|drop|strip|take\s+out)\s+(?:the\s+|all\s+)?colou?rs?|gr[ae]y(?:ed)?\s+out)\b`,
    'g',
  ),
  build: () => [{ op: 'grade', preset: 'greyscale' }],
};

/** The rules tried after geometry and size, in order. */
export const TONE_RULES: Rule[] = [
  {
    name: 'sepia',
    re: /\bsepia(?:[- ]tone[ds]?)?\b|\b(?:brown(?:ish)?|antique)\s+(?:tones?|tint)\b/g,
    build: () => [{ op: 'grade', preset: 'sepia' }],
  },
  {
    name: 'vintage',
    re: new RegExp(
      String.raw`\b(?:vintage|retro|old[- ]?(?:school|fashioned|timey|photo|photograph|film|style)|nostalgic` +
        String.raw`|film\s+(?:look|style|grain|photo)|analog(?:ue)?(?:\s+film)?|polaroid|faded(?:\s+film)?` +
        String.raw`|(?:19)?[78]0s|lomo|look\s+old|aged)\b` +
        String.raw`(?:\s+(?:look|style|feel|effect|filter|vibe|tones?|grade))?`,
      'g',
    ),
    build: () => [{ op: 'grade', preset: 'vintage' }],
  },
  {
    name: 'adjust-verb',
    re: new RegExp(
      String.raw`\b(brighten|lighten|darken|dim)(?:\s+up)?${OBJ}(?:\s+(?:up\s+)?${INTENSITY})?${AMOUNT}?` +
        String.raw`|\b${INTENSITY}\s+(brighten|lighten|darken|dim)${OBJ}`,
      'g',
    ),
    build: (m) => {
      const verb = m[1] ?? m[5];
      const up = verb === 'brighten' || verb === 'lighten';
      return [adjust('brightness', factor('brightness', up, strength(m[2] ?? m[4]), m[3]))];
    },
  },
  {
    name: 'adjust-noun',
    re: new RegExp(
      String.raw`\b(${UP}|${DOWN})\s+(?:the\s+)?(?:${INTENSITY}\s+)?${NOUNS}${AMOUNT}?(?:\s+${INTENSITY})?` +
        String.raw`|\b${NOUNS}\s+(up|down|\+|-|plus|minus)\s*(?:by\s+)?(?:${NUM}\s*(?:%|percent))?` +
        String.raw`|\b${NOUNS}\s+([+-])\s*${NUM}\s*(?:%|percent)?`,
      'g',
    ),
    build: (m) => {
      if (m[1] !== undefined) {
        const prop = NOUN_PROPS[m[3].replace('colour', 'color')] ?? 'saturation';
        const up = new RegExp(`^${UP}$`).test(m[1]);
        return [adjust(prop, factor(prop, up, strength(m[2] ?? m[5]), m[4]))];
      }
      if (m[6] !== undefined) {
        const prop = NOUN_PROPS[m[6].replace('colour', 'color')] ?? 'saturation';
        const up = /up|\+|plus/.test(m[7]);
        return [adjust(prop, factor(prop, up, 'normal', m[8]))];
      }
      const prop = NOUN_PROPS[m[9].replace('colour', 'color')] ?? 'saturation';
      return [adjust(prop, factor(prop, m[10] === '+', 'normal', m[11]))];
    },
  },
  {
    name: 'warm',
    re: new RegExp(
      String.raw`\b(?:(?:more|add)\s+warmth|warm(?:er|th)?|golden(?:\s+hour)?|sunn(?:y|ier))\b` +
        String.raw`(?:\s+(?:tones?|colou?rs?|tint|look|feel|filter|glow|grade|light|white\s+balance))?`,
      'g',
    ),
    build: () => [{ op: 'grade', preset: 'warm' }],
  },
  {
    name: 'cool',
    re: new RegExp(
      String.raw`\b(?:cool(?:er)?|cold(?:er)?|icy|bluish|blue\s+tint|chilly)\b` +
        String.raw`(?:\s+(?:tones?|colou?rs?|tint|look|feel|filter|grade|white\s+balance))?`,
      'g',
    ),
    build: () => [{ op: 'grade', preset: 'cool' }],
  },
  {
    name: 'invert',
    re: /\b(?:invert(?:ed)?(?:\s+(?:the\s+|all\s+)?colou?rs?)?|negative|colou?r\s+inversion)\b/g,
    build: () => [{ op: 'grade', preset: 'invert' }],
  },
  {
    name: 'auto',
    re: new RegExp(
      String.raw`\b(?:auto[- ]?(?:enhance|adjust|correct|levels|colou?r|contrast|fix|tone)|enhance|improve` +
        String.raw`|fix\s+(?:the\s+)?(?:colou?rs?|exposure|lighting|white\s+balance)|normali[sz]e` +
        String.raw`|balance\s+(?:the\s+)?colou?rs?|colou?r\s+correct(?:ion)?)\b` +
        String.raw`(?:\s+(?:the\s+)?(?:photo|image|picture|colou?rs?|lighting|it))?`,
      'g',
    ),
    build: () => [{ op: 'grade', preset: 'auto' }],
  },
  // --- tone adjustments ---
  {
    name: 'adjust-comparative',
    re: new RegExp(
      String.raw`\b(?:(\d+(?:\.\d+)?)\s*(?:%|percent)\s+|${INTENSITY}\s+)?` +
        String.raw`(${COMPARATIVES.map(([w]) => w).join('|')})\b(?:\s+${INTENSITY})?${AMOUNT}?`,
      'g',
    ),
    build: (m) => {
      const word = m[3];
      const hit = COMPARATIVES.find(([w]) => new RegExp(`^${w}$`).test(word));
      if (!hit) return null;
      const [, prop, up] = hit;
      return [adjust(prop, factor(prop, up, strength(m[2] ?? m[4]), m[1] ?? m[5]))];
    },
  },
  // --- detail ---
  {
    name: 'sharpen',
    re: new RegExp(
      String.raw`\b(?:${INTENSITY}\s+)?(?:sharpen(?:ed)?|sharper|crisper|crisp(?:en)?` +
        String.raw`|more\s+(?:detail(?:ed)?|defined)|less\s+blurr?y|un-?blur|de-?blur|clearer` +
        String.raw`|increase\s+(?:the\s+)?sharpness|(?:add|more|increase)\s+(?:sharpness|clarity)|clarity)${OBJ}` +
        String.raw`(?:\s+${INTENSITY})?\b`,
      'g',
    ),
    build: (m) => [{ op: 'sharpen', sigma: pick(strength(m[1] ?? m[2]), 0.7, 1, 2) }],
  },
  {
    name: 'blur',
    re: new RegExp(
      String.raw`\b(?:${INTENSITY}\s+)?(?:gaussian\s+blur|blur(?:red|ry)?|soften|softer|smooth(?:en)?` +
        String.raw`|out\s+of\s+focus|defocus(?:ed)?)${OBJ}(?:\s+${INTENSITY})?` +
        String.raw`(?:\s+(?:by|with\s+(?:a\s+)?(?:radius|sigma)(?:\s+of)?|radius|sigma)?\s*${NUM}\s*(?:px|pixels)?)?`,
      'g',
    ),
    build: (m) => {
      const explicit = m[3] !== undefined ? Number(m[3]) : null;
      const sigma =
        explicit !== null && explicit > 0 ? Math.min(explicit, 200) : pick(strength(m[1] ?? m[2]), 2, 4, 10);
      return [{ op: 'blur', sigma }];
    },
  },
];
