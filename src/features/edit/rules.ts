/**
 * The phrase rules of the instruction parser: each is a regular expression
 * over the normalised prompt (lower case, see parse.ts) and a builder that
 * turns a match into operations. Rules are tried in the order of RULES; a
 * later rule never takes text an earlier one already took, so specific
 * phrases ("blur the background", "no background", "black and white") come
 * before the general words inside them ("blur", "no", "and").
 */
import {
  OBJ,
  BG,
  C,
  NUM,
  INTENSITY,
  AMOUNT,
  ASPECT,
  SUBJECT,
  strength,
  pick,
  colour,
  aspectOf,
  WHITE,
  factor,
  adjust,
  COMPARATIVES,
  NOUN_PROPS,
  NOUNS,
  UP,
  DOWN,
} from './ruleFragments.js';
import type { EditOperation, OutputFormat } from './types.js';

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

// --- the rules ----------------------------------------------------------------
export const RULES: Rule[] = [
  // Background removal first: "no background" / "without background" must not be read as negations.
  {
    name: 'background-remove',
    re: new RegExp(
      String.raw`\b(?:(?:remove|delete|erase|drop|get\s+rid\s+of|cut\s+out|take\s+out|take\s+away|strip|lose|eliminate)\s+(?:the\s+|its\s+|a\s+|any\s+)?(?:entire\s+|whole\s+)?${BG}` +
        String.raw`|(?:no|without(?:\s+(?:a|the|any))?|removed?|transparent|clear|blank)\s+${BG}` +
        String.raw`|${BG}\s+(?:removed|removal|remover|gone|erased)` +
        String.raw`|(?:cut\s*out|isolate|extract)\s+${SUBJECT}|cut-?out)\b`,
      'g',
    ),
    build: () => [{ op: 'background', action: 'remove' }],
  },
  {
    name: 'noir',
    re: /\b(?:film\s+)?noir\b|\bhigh[- ]contrast\s+(?:black\s*(?:and|&)\s*white|b\s*&\s*w|monochrome|gr[ae]yscale)\b|\bdramatic\s+(?:black\s*(?:and|&)\s*white|b\s*&\s*w)\b/g,
    build: () => [{ op: 'grade', preset: 'noir' }],
  },
  {
    name: 'greyscale',
    re: /\b(?:black\s*(?:and|&|n|'n'|\+)\s*white|b\s*&\s*w|b\s*\/\s*w|bnw|gr[ae]y\s*scale|gr[ae]yscale|monochrome|monochromatic|mono|colou?rless|desaturated?(?!\s+(?:it\s+)?(?:slightly|a\s+(?:little\s+)?bit|a\s+little|a\s+touch|somewhat|a\s+tad))|(?:no|without(?:\s+any)?)\s+colou?rs?|(?:remove|drop|strip|take\s+out)\s+(?:the\s+|all\s+)?colou?rs?|gr[ae]y(?:ed)?\s+out)\b/g,
    build: () => [{ op: 'grade', preset: 'greyscale' }],
  },
  {
    name: 'negation',
    ignore: true,
    re: /\b(?:don'?t|do\s+not|never|without|no\s+need\s+to|avoid|but\s+not|not|no)\b[^,.;!]*?(?=$|[,.;!]|\s+(?:and|then|but|also|plus)\b)/g,
    build: () => [],
  },
  {
    name: 'background-blur',
    re: new RegExp(
      String.raw`\b(?:${INTENSITY}\s+)?(?:blur(?:red|ry)?|defocus(?:ed)?|soften|soft|out\s+of\s+focus)\s+(?:out\s+)?(?:the\s+|its\s+)?${BG}(?:\s+${INTENSITY})?` +
        String.raw`|\b${BG}\s+(?:${INTENSITY}\s+)?(?:blur(?:red|ry)?|out\s+of\s+focus|soft|defocused)(?:\s+${INTENSITY})?` +
        String.raw`|\b(?:bokeh|portrait\s+mode|(?:shallow\s+)?depth\s+of\s+field)(?:\s+effect)?\b`,
      'g',
    ),
    build: (m) => {
      const s = strength(m[1] ?? m[2] ?? m[3] ?? m[4]);
      return [{ op: 'background', action: 'blur', sigma: pick(s, 6, 12, 24) }];
    },
  },
  {
    name: 'background-replace',
    re: new RegExp(
      String.raw`\b(?:replace|change|swap|switch|turn|make|set|paint|fill|colou?r)\s+(?:the\s+|its\s+)?${BG}\s+(?:with|to|into|in|for|by|as|=)?\s*(?:an?\s+|plain\s+|solid\s+|pure\s+|flat\s+|simple\s+)*${C}(?:\s+(?:colou?r|one|backdrop))?` +
        String.raw`|\b(?:(?:put|place|set)\s+(?:it\s+|the\s+subject\s+)?on\s+)?(?:an?\s+|plain\s+|solid\s+|pure\s+|flat\s+|simple\s+)*${C}\s+(?:${BG}|backdrop)` +
        String.raw`|\b${BG}\s+(?:colou?r\s+)?(?:to\s+|of\s+|in\s+|is\s+|=\s*|should\s+be\s+)?(?:be\s+)?(?:plain\s+|solid\s+|pure\s+)?${C}`,
      'g',
    ),
    build: (m) => {
      const c = colour(m[1] ?? m[2] ?? m[3], WHITE);
      if (c.alpha === 0) return [{ op: 'background', action: 'remove' }];
      return [{ op: 'background', action: 'replace', color: c }];
    },
  },
  // --- geometry ---
  {
    name: 'rotate-upside-down',
    re: /\b(?:(?:rotate|turn|spin)(?:\s+(?:it|this|the\s+(?:image|photo|picture)))?\s+)?upside[- ]down\b(?<!flip(?:\s+(?:it|this|the\s+(?:image|photo|picture)))?\s+upside[- ]down)/g,
    build: () => [{ op: 'rotate', degrees: 180 }],
  },
  {
    name: 'rotate-degrees',
    re: new RegExp(
      String.raw`\b(?:(?:rotate|turn|spin|tilt)${OBJ}\s+(?:by\s+)?)?(-?\d+(?:\.\d+)?)\s*(?:degrees?|deg)\b(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?` +
        String.raw`|\b(?:rotate|turn|spin)${OBJ}\s+(?:by\s+)?(-?\d+(?:\.\d+)?)\b(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?`,
      'g',
    ),
    build: (m) => {
      const deg = Number(m[1] ?? m[3]);
      const dir = m[2] ?? m[4];
      const ccw = dir !== undefined && /counter|anti|ccw|left/.test(dir);
      const d = (((ccw ? -deg : deg) % 360) + 360) % 360;
      return d === 0 ? [] : [{ op: 'rotate', degrees: d }];
    },
  },
  {
    name: 'rotate-direction',
    re: new RegExp(
      String.raw`\b(?:rotate|turn|spin)${OBJ}(?:\s+(?:a\s+)?(quarter|half)(?:[- ]turn)?)?(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?` +
        String.raw`|\b(?:a\s+)?(quarter|half)[- ]turn(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?`,
      'g',
    ),
    build: (m) => {
      const amount = m[1] ?? m[3];
      const dir = m[2] ?? m[4];
      // "turn" alone is too common a verb ("turn it black and white"): only with a direction or an amount.
      if (!amount && !dir && !/^\s*(?:rotate|spin)/.test(m[0])) return null;
      const deg = amount === 'half' ? 180 : 90;
      const ccw = dir !== undefined && /counter|anti|ccw|left/.test(dir);
      return [{ op: 'rotate', degrees: ccw ? 360 - deg : deg }];
    },
  },
  {
    name: 'flip',
    re: new RegExp(
      String.raw`\b(?:flip(?:ped)?|mirror(?:ed)?|flop|reflect)${OBJ}(?:\s+(?:image\s+)?(horizontally|vertically|left[- ]to[- ]right|right[- ]to[- ]left|top[- ]to[- ]bottom|bottom[- ]to[- ]top|upside[- ]down|side[- ]to[- ]side|sideways))?(?:\s+image)?\b` +
        String.raw`|\b(horizontal|vertical)\s+(?:flip|mirror)\b`,
      'g',
    ),
    build: (m) => {
      const how = m[1] ?? m[2] ?? '';
      const vertical = /vertical|top|bottom|upside/.test(how);
      return [{ op: 'flip', axis: vertical ? 'vertical' : 'horizontal' }];
    },
  },
  {
    name: 'crop-subject',
    re: new RegExp(
      String.raw`\b(?:crop|zoom|cut|trim|frame|center|centre)(?:ped)?${OBJ}\s+(?:in\s+)?(?:to|on|onto|around|in\s+on|into|close\s+to|closer\s+to|tight(?:ly)?\s+(?:to|around|on)|focusing\s+on|centred\s+on|centered\s+on)\s+${SUBJECT}` +
        String.raw`(?:\s+(?:in|at|as|to)\s+(?:an?\s+)?${ASPECT}(?:\s+(?:aspect(?:\s+ratio)?|ratio|format|shape))?)?` +
        String.raw`|\b(?:tight(?:er)?|smart|auto(?:matic)?[- ]?|subject)\s*crop\b|\bcrop\s+tight(?:ly|er)?\b|\bzoom\s+in\b`,
      'g',
    ),
    build: (m) => [{ op: 'crop', aspect: aspectOf(m[1], m[2], m[3]), subject: true }],
  },
  {
    name: 'crop-aspect',
    re: new RegExp(
      String.raw`\b(?:(?:crop|cut|trim|reframe|make|turn|change|convert|set|reshape)(?:ped)?${OBJ}\s+(?:it\s+)?(?:to|into|as|at|in|for)?\s*(?:an?\s+|the\s+)?(?:aspect\s+(?:ratio\s+)?(?:of\s+)?)?)?${ASPECT}` +
        String.raw`(?:\s+(?:aspect(?:\s+ratio)?|ratio|format|crop|shape|image|photo|picture|version))?` +
        String.raw`(?:\s+(?:around|on|focusing\s+on|centred\s+on|centered\s+on|keeping)\s+(${SUBJECT}))?` +
        String.raw`|\baspect\s+ratio\s+(?:of\s+|to\s+)?(\d+(?:\.\d+)?)\s*(?::|x|\/)\s*(\d+(?:\.\d+)?)`,
      'g',
    ),
    build: (m) => {
      // "1024x768" with a resize verb belongs to the resize rule (tried after this one): only crop words or ratio-sized numbers here.
      const text = m[0];
      const explicitCrop = /\b(?:crop|cut|trim|reframe|aspect|ratio|format|shape)\b/.test(text) || m[3] !== undefined;
      if (!explicitCrop && m[1] !== undefined && (Number(m[1]) > 32 || Number(m[2]) > 32)) return null;
      if (!explicitCrop && m[1] !== undefined && /\bby\b/.test(text)) return null;
      const aspect = aspectOf(m[1] ?? m[5], m[2] ?? m[6], m[3]);
      return aspect ? [{ op: 'crop', aspect, subject: m[4] !== undefined }] : null;
    },
  },
  {
    name: 'crop-plain',
    re: /\bcrop(?:ped)?(?:\s+(?:it|this|the\s+(?:image|photo|picture)))?\b/g,
    build: () => [{ op: 'crop', aspect: null, subject: true }],
  },
  // --- size ---
  {
    name: 'resize-dimensions',
    re: new RegExp(
      String.raw`\b(?:(?:resize|scale|size|make)${OBJ}\s+(?:it\s+)?(?:to|at|down\s+to|up\s+to)?\s*)?(\d{2,5})\s*(?:px|pixels)?\s*(?:x|by)\s*(\d{2,5})\s*(?:px|pixels)?` +
        String.raw`|\b(?:(?:resize|scale|size|make)${OBJ}\s+(?:it\s+)?(?:to\s+)?)?(\d{2,5})\s*(?:px|pixels)?\s+(wide|width|across|tall|high|height)\b` +
        String.raw`|\b(width|height)\s+(?:of\s+|to\s+|=\s*)?(\d{2,5})\s*(?:px|pixels)?` +
        String.raw`|\b(?:resize|scale|size)${OBJ}\s+(?:it\s+)?(?:to|by)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)`,
      'g',
    ),
    build: (m) => {
      if (m[1] !== undefined) return [{ op: 'resize', width: Number(m[1]), height: Number(m[2]) }];
      if (m[3] !== undefined)
        return [
          /wide|width|across/.test(m[4])
            ? { op: 'resize', width: Number(m[3]) }
            : { op: 'resize', height: Number(m[3]) },
        ];
      if (m[5] !== undefined)
        return [m[5] === 'width' ? { op: 'resize', width: Number(m[6]) } : { op: 'resize', height: Number(m[6]) }];
      const pct = Number(m[7]);
      return pct > 0 ? [{ op: 'resize', scale: pct / 100 }] : null;
    },
  },
  {
    name: 'upscale',
    re: new RegExp(
      String.raw`\b(?:${NUM}\s*(?:x|times|fold)\s+)?(?:upscale|up-?scale|upsample|enlarge|scale\s+up|super[- ]?resolution|super[- ]?res|increase\s+(?:the\s+)?(?:resolution|size)|enhance\s+(?:the\s+)?resolution|higher\s+resolution|more\s+resolution|bigger|larger)(?:d|ing)?${OBJ}` +
        String.raw`(?:\s+(?:by|to|with)?\s*(?:a\s+factor\s+of\s+)?${NUM}\s*(?:x|times|fold)?\b|\s+(?:by\s+)?(?:(twice|double)|(four\s*fold|quadruple)))?` +
        String.raw`|\b(?:double|twice)\s+(?:the\s+)?(?:size|resolution|dimensions)\b|\btwice\s+as\s+(?:big|large)\b`,
      'g',
    ),
    build: (m) => {
      const n = Number(m[1] ?? m[2] ?? (m[3] ? 2 : m[4] ? 4 : 2));
      if (!(n > 1) || n > 8) return null;
      return [{ op: 'resize', scale: n }];
    },
  },
  {
    name: 'downscale',
    re: new RegExp(
      String.raw`\b(?:downscale|down-?size|shrink|scale\s+down|reduce\s+(?:the\s+)?(?:size|resolution|dimensions)|smaller|lower\s+(?:the\s+)?resolution)${OBJ}` +
        String.raw`(?:\s+(?:by|to)\s+(?:(half|a\s+half|a\s+quarter|quarter)|${NUM}\s*(%|percent|x|times)?))?` +
        String.raw`|\bhalf\s+(?:the\s+)?(?:size|resolution)\b`,
      'g',
    ),
    build: (m) => {
      const text = m[0];
      let scale = 0.5;
      if (m[1]) scale = /quarter/.test(m[1]) ? 0.25 : 0.5;
      else if (m[2] !== undefined) {
        const n = Number(m[2]);
        const unit = m[3];
        if (unit === '%' || unit === 'percent') scale = /\bby\b/.test(text) ? 1 - n / 100 : n / 100;
        else if (n > 1) scale = 1 / n;
        else scale = n;
      }
      return scale > 0 && scale < 1 ? [{ op: 'resize', scale: Math.round(scale * 10000) / 10000 }] : null;
    },
  },
  // --- grades ---

  {
    name: 'sepia',
    re: /\bsepia(?:[- ]tone[ds]?)?\b|\b(?:brown(?:ish)?|antique)\s+(?:tones?|tint)\b/g,
    build: () => [{ op: 'grade', preset: 'sepia' }],
  },
  {
    name: 'vintage',
    re: /\b(?:vintage|retro|old[- ]?(?:school|fashioned|timey|photo|photograph|film|style)|nostalgic|film\s+(?:look|style|grain|photo)|analog(?:ue)?(?:\s+film)?|polaroid|faded(?:\s+film)?|(?:19)?[78]0s|lomo|look\s+old|aged)\b(?:\s+(?:look|style|feel|effect|filter|vibe|tones?|grade))?/g,
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
    re: /\b(?:(?:more|add)\s+warmth|warm(?:er|th)?|golden(?:\s+hour)?|sunn(?:y|ier))\b(?:\s+(?:tones?|colou?rs?|tint|look|feel|filter|glow|grade|light|white\s+balance))?/g,
    build: () => [{ op: 'grade', preset: 'warm' }],
  },
  {
    name: 'cool',
    re: /\b(?:cool(?:er)?|cold(?:er)?|icy|bluish|blue\s+tint|chilly)\b(?:\s+(?:tones?|colou?rs?|tint|look|feel|filter|grade|white\s+balance))?/g,
    build: () => [{ op: 'grade', preset: 'cool' }],
  },
  {
    name: 'invert',
    re: /\b(?:invert(?:ed)?(?:\s+(?:the\s+|all\s+)?colou?rs?)?|negative|colou?r\s+inversion)\b/g,
    build: () => [{ op: 'grade', preset: 'invert' }],
  },
  {
    name: 'auto',
    re: /\b(?:auto[- ]?(?:enhance|adjust|correct|levels|colou?r|contrast|fix|tone)|enhance|improve|fix\s+(?:the\s+)?(?:colou?rs?|exposure|lighting|white\s+balance)|normali[sz]e|balance\s+(?:the\s+)?colou?rs?|colou?r\s+correct(?:ion)?)\b(?:\s+(?:the\s+)?(?:photo|image|picture|colou?rs?|lighting|it))?/g,
    build: () => [{ op: 'grade', preset: 'auto' }],
  },
  // --- tone adjustments ---

  {
    name: 'adjust-comparative',
    re: new RegExp(
      String.raw`\b(?:(\d+(?:\.\d+)?)\s*(?:%|percent)\s+|${INTENSITY}\s+)?(${COMPARATIVES.map(([w]) => w).join('|')})\b(?:\s+${INTENSITY})?${AMOUNT}?`,
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
      String.raw`\b(?:${INTENSITY}\s+)?(?:sharpen(?:ed)?|sharper|crisper|crisp(?:en)?|more\s+(?:detail(?:ed)?|defined)|less\s+blurr?y|un-?blur|de-?blur|clearer|increase\s+(?:the\s+)?sharpness|(?:add|more|increase)\s+(?:sharpness|clarity)|clarity)${OBJ}(?:\s+${INTENSITY})?\b`,
      'g',
    ),
    build: (m) => [{ op: 'sharpen', sigma: pick(strength(m[1] ?? m[2]), 0.7, 1, 2) }],
  },
  {
    name: 'blur',
    re: new RegExp(
      String.raw`\b(?:${INTENSITY}\s+)?(?:gaussian\s+blur|blur(?:red|ry)?|soften|softer|smooth(?:en)?|out\s+of\s+focus|defocus(?:ed)?)${OBJ}(?:\s+${INTENSITY})?` +
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
  // --- border ---
  {
    name: 'border',
    re: new RegExp(
      String.raw`\b(?:(?:add(?:ing)?|put|draw|place|apply|with|give\s+it|surround\s+it\s+with)\s+)?(?:an?\s+|the\s+)?` +
        String.raw`(?:(\d+)\s*-?\s*(px|pixels?|%|percent)\s+)?(?:(thin|thick|wide|narrow|small|big|large|fat|heavy|subtle|bold)\s+)?(?:${C}\s+)?(?:(\d+)\s*-?\s*(px|pixels?|%|percent)\s+)?` +
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
  },
  // --- output format ---
  {
    name: 'format',
    re: /\b(?:(?:convert|change|save|export|output|encode|turn|make|write|give\s+me)(?:\s+(?:it|this|the\s+(?:image|file|photo|picture)))?\s+)?(?:(?:to|as|into|in)\s+)?(?:an?\s+)?(png|jpe?g|webp)\b(?:\s+(?:format|file|image))?/g,
    build: (m) => [{ op: 'format', format: (m[1].startsWith('jp') ? 'jpg' : m[1]) as OutputFormat }],
  },
];
