/**
 * The geometry and size rules of the instruction parser, in the order ./rules.ts tries them: rotate,
 * flip, crop (to the subject, to an aspect ratio, plain), resize to dimensions, upscale, downscale.
 */
import { ASPECT, NUM, OBJ, SUBJECT, aspectOf, type Rule } from './ruleFragments.js';

export const GEOMETRY_RULES: Rule[] = [
  {
    name: 'rotate-upside-down',
    re: new RegExp(
      String.raw`\b(?:(?:rotate|turn|spin)(?:\s+(?:it|this|the\s+(?:image|photo|picture)))?\s+)?upside[- ]down\b` +
        String.raw`(?<!flip(?:\s+(?:it|this|the\s+(?:image|photo|picture)))?\s+upside[- ]down)`,
      'g',
    ),
    build: () => [{ op: 'rotate', degrees: 180 }],
  },
  {
    name: 'rotate-degrees',
    re: new RegExp(
      String.raw`\b(?:(?:rotate|turn|spin|tilt)${OBJ}\s+(?:by\s+)?)?(-?\d+(?:\.\d+)?)\s*(?:degrees?|deg)\b` +
        String.raw`(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?` +
        String.raw`|\b(?:rotate|turn|spin)${OBJ}\s+(?:by\s+)?(-?\d+(?:\.\d+)?)\b` +
        String.raw`(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?`,
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
      String.raw`\b(?:rotate|turn|spin)${OBJ}(?:\s+(?:a\s+)?(quarter|half)(?:[- ]turn)?)?` +
        String.raw`(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?` +
        String.raw`|\b(?:a\s+)?(quarter|half)[- ]turn` +
        String.raw`(?:\s+(?:to\s+the\s+)?(clockwise|cw|counter[- ]?clockwise|anti[- ]?clockwise|ccw|left|right))?`,
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
      String.raw`\b(?:flip(?:ped)?|mirror(?:ed)?|flop|reflect)${OBJ}` +
        String.raw`(?:\s+(?:image\s+)?(horizontally|vertically|left[- ]to[- ]right|right[- ]to[- ]left` +
        String.raw`|top[- ]to[- ]bottom|bottom[- ]to[- ]top|upside[- ]down|side[- ]to[- ]side|sideways))?` +
        String.raw`(?:\s+image)?\b` +
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
      String.raw`\b(?:crop|zoom|cut|trim|frame|center|centre)(?:ped)?${OBJ}\s+(?:in\s+)?` +
        String.raw`(?:to|on|onto|around|in\s+on|into|close\s+to|closer\s+to|tight(?:ly)?\s+(?:to|around|on)` +
        String.raw`|focusing\s+on|centred\s+on|centered\s+on)\s+${SUBJECT}` +
        String.raw`(?:\s+(?:in|at|as|to)\s+(?:an?\s+)?${ASPECT}(?:\s+(?:aspect(?:\s+ratio)?|ratio|format|shape))?)?` +
        String.raw`|\b(?:tight(?:er)?|smart|auto(?:matic)?[- ]?|subject)\s*crop\b|\bcrop\s+tight(?:ly|er)?\b|\bzoom\s+in\b`,
      'g',
    ),
    build: (m) => [{ op: 'crop', aspect: aspectOf(m[1], m[2], m[3]), subject: true }],
  },
  {
    name: 'crop-aspect',
    re: new RegExp(
      String.raw`\b(?:(?:crop|cut|trim|reframe|make|turn|change|convert|set|reshape)(?:ped)?${OBJ}\s+(?:it\s+)?` +
        String.raw`(?:to|into|as|at|in|for)?\s*(?:an?\s+|the\s+)?(?:aspect\s+(?:ratio\s+)?(?:of\s+)?)?)?${ASPECT}` +
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
      String.raw`\b(?:(?:resize|scale|size|make)${OBJ}\s+(?:it\s+)?(?:to|at|down\s+to|up\s+to)?\s*)?(\d{2,5})\s*` +
        String.raw`(?:px|pixels)?\s*(?:x|by)\s*(\d{2,5})\s*(?:px|pixels)?` +
        String.raw`|\b(?:(?:resize|scale|size|make)${OBJ}\s+(?:it\s+)?(?:to\s+)?)?(\d{2,5})\s*(?:px|pixels)?\s+` +
        String.raw`(wide|width|across|tall|high|height)\b` +
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
      String.raw`\b(?:${NUM}\s*(?:x|times|fold)\s+)?` +
        String.raw`(?:upscale|up-?scale|upsample|enlarge|scale\s+up|super[- ]?resolution|super[- ]?res` +
        String.raw`|increase\s+(?:the\s+)?(?:resolution|size)|enhance\s+(?:the\s+)?resolution|higher\s+resolution` +
        String.raw`|more\s+resolution|bigger|larger)(?:d|ing)?${OBJ}` +
        String.raw`(?:\s+(?:by|to|with)?\s*(?:a\s+factor\s+of\s+)?${NUM}\s*(?:x|times|fold)?\b` +
        String.raw`|\s+(?:by\s+)?(?:(twice|double)|(four\s*fold|quadruple)))?` +
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
      String.raw`\b(?:downscale|down-?size|shrink|scale\s+down|reduce\s+(?:the\s+)?(?:size|resolution|dimensions)` +
        String.raw`|smaller|lower\s+(?:the\s+)?resolution)${OBJ}` +
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
];
