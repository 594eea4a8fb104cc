/**
 * The instruction parser: a free-text prompt ("rotate 90 degrees, then make it
 * black and white and add a border") → an ordered plan of typed operations.
 *
 * How it reads a prompt:
 * 1. normalise: lower case, number words to digits ("ninety" → 90), "°" → degrees;
 * 2. apply the phrase rules of ./rules.ts in their priority order; each match
 *    takes its text, so no word is read twice;
 * 3. what no rule took is split at separators (commas, "and", "then" …) and
 *    checked for words that are not filler ("please", "make it", "look" …):
 *    those fragments are `unrecognised` (e.g. "add a dragon");
 * 4. order: the operations keep the prompt's order within a stage, and the
 *    stages run geometry (rotate, flip, crop) → background → colour and tone →
 *    detail (sharpen, blur) → size → border. So a border is never cropped or
 *    blurred away, the matte model sees the colours of the photo, and the
 *    expensive upscale runs last. A format request is not a pixel operation:
 *    it selects the output format.
 */
import { unprocessable } from '../../platform/errors.js';
import { RULES } from './rules.js';
import type { EditOperation, EditPlan } from './types.js';

const WORD_NUMBERS: Array<[RegExp, string]> = [
  [/\bone hundred (?:and )?eighty\b|\bhundred (?:and )?eighty\b/g, '180'],
  [/\btwo hundred (?:and )?seventy\b/g, '270'],
  [/\bforty[- ]five\b/g, '45'],
  [/\bninety\b/g, '90'],
  [/\bthirty\b/g, '30'],
  [/\bsixty\b/g, '60'],
  [/\btwenty\b/g, '20'],
  [/\bfifty\b/g, '50'],
  [/\bten\b/g, '10'],
  [/\bfive\b/g, '5'],
  [/\btwo\b/g, '2'],
  [/\bthree\b/g, '3'],
  [/\bfour\b/g, '4'],
];

/** Lower case, digits for number words, one space between words. Positions in the plan refer to this text. */
export function normalisePrompt(prompt: string): string {
  let t = prompt
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"');
  t = t.replace(/°/g, ' degrees ').replace(/×/g, 'x').replace(/\s+/g, ' ');
  for (const [re, digits] of WORD_NUMBERS) t = t.replace(re, digits);
  return t.trim();
}

/** Words that carry no instruction of their own; what remains after them is "unrecognised". */
const FILLER = new Set(
  (
    "a an the it its it's this that these those is are be was been should would could can will shall may might must " +
    "please pls plz kindly you u i i'd i'm i'll we me my our us your want wanted wants like love need needs let let's lets " +
    'make makes making made turn give apply add adding put get do does doing just also and then after afterwards afterward ' +
    'finally lastly first firstly second secondly next now too as well to into in on of for with by at from up so some ' +
    'bit little lot lots very really much more less slightly slight somewhat quite way tad touch mild strong strongly ' +
    'look looks looking feel vibe effect effects filter style version result output file image images photo photos ' +
    'picture pictures pic pics shot thing one whole entire overall all everything again here there nicely nice please ' +
    'thanks thank thx hi hello hey ok okay yes same but or plus px pixel pixels percent degree degrees x times mode ' +
    'how what which something kind sort abit alittle while keeping keep convert change edit colour colours color colors tone tones ' +
    'tint grade'
  ).split(/\s+/),
);

/** Splits what no rule took into fragments at clause boundaries. */
const SEPARATORS = /[,.;!?:&+]|\s(?:and|then|also|plus|after\s+that|afterwards|but)\s/g;

/** Parses a prompt into an edit plan (never throws; see assertEditable for the 422). */
export function parsePrompt(prompt: string): EditPlan {
  const text = normalisePrompt(prompt);
  const taken = new Uint8Array(text.length);
  const hits: Array<{ start: number; ops: EditOperation[] }> = [];
  const ignored: string[] = [];

  for (const rule of RULES) {
    const re = new RegExp(rule.re.source, rule.re.flags.includes('g') ? rule.re.flags : `${rule.re.flags}g`);
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const start = m.index;
      const end = start + m[0].length;
      if (taken.subarray(start, end).some((v) => v === 1)) {
        // Let a shorter match starting later in this text still be found.
        re.lastIndex = start + 1;
        continue;
      }
      const ops = rule.build(m);
      if (ops === null) {
        re.lastIndex = start + 1;
        continue;
      }
      taken.fill(1, start, end);
      if (rule.ignore) ignored.push(m[0].trim());
      else hits.push({ start, ops });
    }
  }

  hits.sort((a, b) => a.start - b.start);
  // One grade preset once: "warm golden hour glow" names the warm look twice.
  const seen = new Set<string>();
  const inPromptOrder = hits
    .flatMap((h) => h.ops)
    .filter((op) => {
      if (op.op !== 'grade') return true;
      const key = op.preset;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { operations: orderOperations(inPromptOrder), unrecognised: leftovers(text, taken), ignored };
}

/** Stage of each operation: lower runs first; equal stages keep the prompt's order. */
const STAGE: Record<EditOperation['op'], number> = {
  rotate: 0,
  flip: 0,
  crop: 0,
  background: 1,
  grade: 2,
  adjust: 2,
  sharpen: 3,
  blur: 3,
  resize: 4,
  border: 5,
  format: 6,
};

export function orderOperations(ops: EditOperation[]): EditOperation[] {
  return ops
    .map((op, i) => ({ op, i }))
    .sort((a, b) => STAGE[a.op.op] - STAGE[b.op.op] || a.i - b.i)
    .map((x) => x.op);
}

function leftovers(text: string, taken: Uint8Array): string[] {
  let rest = '';
  for (let i = 0; i < text.length; i++) rest += taken[i] ? ' | ' : text[i];
  const out: string[] = [];
  for (const fragment of rest.split('|').flatMap((part) => part.split(SEPARATORS))) {
    const words = fragment.toLowerCase().match(/[\p{L}']+/gu) ?? [];
    const content = words.filter((w) => !FILLER.has(w) && !FILLER.has(w.replace(/'s$/, '')));
    if (content.length) out.push(fragment.trim().replace(/\s+/g, ' '));
  }
  return out;
}

/** What the local editor can do, for the 422 message. */
export const ABILITIES =
  'rotate ("rotate 90 degrees", "rotate left", "upside down"), flip or mirror, crop to an aspect ratio ("square crop", "crop to 16:9") ' +
  'or to the main subject, resize ("800px wide", "half size") or upscale ("upscale 2x"), black and white, sepia, vintage, warm, cool, ' +
  'noir, invert, auto-enhance, brightness / contrast / saturation ("20% brighter", "much darker", "more contrast"), sharpen, blur, ' +
  'remove, blur or replace the background ("replace the background with white"), add a border ("add a 10px red border"), ' +
  'and convert to jpg, png or webp';

/**
 * The plan a prompt yields, or a 422 (`unprocessable`) naming what was not
 * understood and listing what the editor can do.
 */
export function assertEditable(plan: EditPlan): void {
  if (plan.unrecognised.length) {
    const what = plan.unrecognised.map((u) => `"${u}"`).join(', ');
    throw unprocessable(`the local image editor cannot do ${what}; it can: ${ABILITIES}`);
  }
  if (plan.operations.length === 0) {
    throw unprocessable(`the prompt names no edit the local image editor can make; it can: ${ABILITIES}`);
  }
}

/** A short human description of one operation, for the answer's `operations` list. */
export function describeOperation(op: EditOperation): string {
  const pct = (f: number) => `${f >= 1 ? '+' : '−'}${Math.round(Math.abs(f - 1) * 100)}%`;
  switch (op.op) {
    case 'rotate':
      return `rotate ${op.degrees}° clockwise`;
    case 'flip':
      return op.axis === 'horizontal' ? 'mirror left to right' : 'flip top to bottom';
    case 'crop':
      return `crop${op.aspect ? ` to ${op.aspect[0]}:${op.aspect[1]}` : ''}${op.subject ? ' around the main subject' : ' (centred)'}`;
    case 'resize':
      return op.scale !== undefined
        ? `${op.scale > 1 ? 'upscale' : 'resize'} ×${op.scale}`
        : `resize to ${op.width ?? 'auto'}×${op.height ?? 'auto'}`;
    case 'grade':
      return op.preset === 'auto' ? 'auto-enhance (normalise levels)' : `${op.preset} grade`;
    case 'adjust':
      return [
        op.brightness !== undefined ? `brightness ${pct(op.brightness)}` : '',
        op.contrast !== undefined ? `contrast ${pct(op.contrast)}` : '',
        op.saturation !== undefined ? `saturation ${pct(op.saturation)}` : '',
      ]
        .filter(Boolean)
        .join(', ');
    case 'sharpen':
      return `sharpen (sigma ${op.sigma})`;
    case 'blur':
      return `blur (sigma ${op.sigma} at 1000 px)`;
    case 'background':
      return op.action === 'remove'
        ? 'remove the background'
        : op.action === 'blur'
          ? 'blur the background'
          : `replace the background with ${rgbText(op.color)}`;
    case 'border':
      return `add a ${op.size}${op.unit === 'px' ? ' px' : '%'} ${rgbText(op.color)} border`;
    case 'format':
      return `convert to ${op.format}`;
  }
}

function rgbText(c: { r: number; g: number; b: number }): string {
  return `#${[c.r, c.g, c.b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}
