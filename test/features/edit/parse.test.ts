/**
 * The instruction parser: many plain phrasings → plans, several operations in
 * one prompt, order, negations, and prompts it cannot do → 422 listing its abilities.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/platform/errors.js';
import { ABILITIES, assertEditable, parsePrompt } from '../../../src/features/edit/parse.js';
import type { EditOperation } from '../../../src/features/edit/types.js';

const WHITE = { r: 255, g: 255, b: 255 };
const BLACK = { r: 0, g: 0, b: 0 };
const RED = { r: 220, g: 30, b: 30 };
const BLUE = { r: 30, g: 90, b: 220 };

const grey: EditOperation = { op: 'grade', preset: 'greyscale' };
const rot = (degrees: number): EditOperation => ({ op: 'rotate', degrees });
const crop = (aspect: [number, number] | null, subject = false): EditOperation => ({ op: 'crop', aspect, subject });
const grade = (preset: Extract<EditOperation, { op: 'grade' }>['preset']): EditOperation => ({ op: 'grade', preset });

const TABLE: Array<[string, EditOperation[]]> = [
  // black and white
  ['make it black and white', [grey]],
  ['Black & White please', [grey]],
  ['b&w', [grey]],
  ['convert to grayscale', [grey]],
  ['greyscale', [grey]],
  ['monochrome', [grey]],
  ['remove the colours', [grey]],
  ['desaturate it', [grey]],
  ['turn it black and white', [grey]],
  // background
  ['remove the background', [{ op: 'background', action: 'remove' }]],
  ['Remove background.', [{ op: 'background', action: 'remove' }]],
  ['get rid of the background', [{ op: 'background', action: 'remove' }]],
  ['transparent background', [{ op: 'background', action: 'remove' }]],
  ['no background', [{ op: 'background', action: 'remove' }]],
  ['make the background transparent', [{ op: 'background', action: 'remove' }]],
  ['cut out the subject', [{ op: 'background', action: 'remove' }]],
  ['blur the background', [{ op: 'background', action: 'blur', sigma: 12 }]],
  ['blurry background', [{ op: 'background', action: 'blur', sigma: 12 }]],
  ['slightly blur the background', [{ op: 'background', action: 'blur', sigma: 6 }]],
  ['portrait mode', [{ op: 'background', action: 'blur', sigma: 12 }]],
  ['bokeh effect', [{ op: 'background', action: 'blur', sigma: 12 }]],
  ['replace the background with blue', [{ op: 'background', action: 'replace', color: BLUE }]],
  ['replace the background with white', [{ op: 'background', action: 'replace', color: WHITE }]],
  ['change the background to #ff8800', [{ op: 'background', action: 'replace', color: { r: 255, g: 136, b: 0 } }]],
  ['put it on a plain white background', [{ op: 'background', action: 'replace', color: WHITE }]],
  ['white background', [{ op: 'background', action: 'replace', color: WHITE }]],
  ['make the background black', [{ op: 'background', action: 'replace', color: BLACK }]],
  // rotate and flip
  ['rotate 90 degrees', [rot(90)]],
  ['rotate it 90°', [rot(90)]],
  ['rotate ninety degrees', [rot(90)]],
  ['rotate 90 degrees counterclockwise', [rot(270)]],
  ['rotate left', [rot(270)]],
  ['rotate right', [rot(90)]],
  ['turn it to the left', [rot(270)]],
  ['rotate the image', [rot(90)]],
  ['rotate by 45 degrees', [rot(45)]],
  ['rotate -90', [rot(270)]],
  ['turn it upside down', [rot(180)]],
  ['upside down', [rot(180)]],
  ['rotate 180', [rot(180)]],
  ['a quarter turn anticlockwise', [rot(270)]],
  ['flip it', [{ op: 'flip', axis: 'horizontal' }]],
  ['mirror the image', [{ op: 'flip', axis: 'horizontal' }]],
  ['flip horizontally', [{ op: 'flip', axis: 'horizontal' }]],
  ['flip vertically', [{ op: 'flip', axis: 'vertical' }]],
  ['flip it upside down', [{ op: 'flip', axis: 'vertical' }]],
  // crop
  ['square crop', [crop([1, 1])]],
  ['crop it square', [crop([1, 1])]],
  ['make it square', [crop([1, 1])]],
  ['crop to 16:9', [crop([16, 9])]],
  ['crop to a 4:3 aspect ratio', [crop([4, 3])]],
  ['16:9', [crop([16, 9])]],
  ['crop to 9 by 16', [crop([9, 16])]],
  ['crop to the subject', [crop(null, true)]],
  ['crop around the main subject', [crop(null, true)]],
  ['zoom in on the person', [crop(null, true)]],
  ['smart crop', [crop(null, true)]],
  ['crop to the subject in a square', [crop([1, 1], true)]],
  ['crop to 4:5 around the subject', [crop([4, 5], true)]],
  ['crop it', [crop(null, true)]],
  // size
  ['upscale 2x', [{ op: 'resize', scale: 2 }]],
  ['upscale', [{ op: 'resize', scale: 2 }]],
  ['2x upscale', [{ op: 'resize', scale: 2 }]],
  ['upscale by 4', [{ op: 'resize', scale: 4 }]],
  ['enlarge it', [{ op: 'resize', scale: 2 }]],
  ['increase the resolution', [{ op: 'resize', scale: 2 }]],
  ['double the size', [{ op: 'resize', scale: 2 }]],
  ['make it bigger', [{ op: 'resize', scale: 2 }]],
  ['make it smaller', [{ op: 'resize', scale: 0.5 }]],
  ['half size', [{ op: 'resize', scale: 0.5 }]],
  ['shrink it by 25%', [{ op: 'resize', scale: 0.75 }]],
  ['downscale to 50%', [{ op: 'resize', scale: 0.5 }]],
  ['resize to 50%', [{ op: 'resize', scale: 0.5 }]],
  ['resize to 800px wide', [{ op: 'resize', width: 800 }]],
  ['make it 600 pixels tall', [{ op: 'resize', height: 600 }]],
  ['resize to 1024x768', [{ op: 'resize', width: 1024, height: 768 }]],
  ['width 640', [{ op: 'resize', width: 640 }]],
  // grades
  ['sepia', [grade('sepia')]],
  ['give it a sepia tone', [grade('sepia')]],
  ['make it look vintage', [grade('vintage')]],
  ['retro look', [grade('vintage')]],
  ['make it look old', [grade('vintage')]],
  ['like an old photo', [grade('vintage')]],
  ['warmer', [grade('warm')]],
  ['warm tones', [grade('warm')]],
  ['golden hour', [grade('warm')]],
  ['cooler', [grade('cool')]],
  ['give it a cold look', [grade('cool')]],
  ['invert the colors', [grade('invert')]],
  ['negative', [grade('invert')]],
  ['film noir', [grade('noir')]],
  ['high contrast black and white', [grade('noir')]],
  ['auto enhance', [grade('auto')]],
  ['fix the colours', [grade('auto')]],
  // tone
  ['brighter', [{ op: 'adjust', brightness: 1.2 }]],
  ['make it 20% brighter', [{ op: 'adjust', brightness: 1.2 }]],
  ['brighten it a bit', [{ op: 'adjust', brightness: 1.1 }]],
  ['much darker', [{ op: 'adjust', brightness: 0.6 }]],
  ['slightly darker', [{ op: 'adjust', brightness: 0.9 }]],
  ['darken by 30%', [{ op: 'adjust', brightness: 0.7 }]],
  ['increase the brightness', [{ op: 'adjust', brightness: 1.2 }]],
  ['brightness +15%', [{ op: 'adjust', brightness: 1.15 }]],
  ['lower the exposure', [{ op: 'adjust', brightness: 0.8 }]],
  ['more contrast', [{ op: 'adjust', contrast: 1.2 }]],
  ['increase contrast by 50%', [{ op: 'adjust', contrast: 1.5 }]],
  ['less contrast', [{ op: 'adjust', contrast: 0.8 }]],
  ['more saturated', [{ op: 'adjust', saturation: 1.3 }]],
  ['make the colours pop', [{ op: 'adjust', saturation: 1.3 }]],
  ['more vibrant', [{ op: 'adjust', saturation: 1.3 }]],
  ['less saturated', [{ op: 'adjust', saturation: 0.7 }]],
  ['muted colours', [{ op: 'adjust', saturation: 0.7 }]],
  // detail
  ['sharpen', [{ op: 'sharpen', sigma: 1 }]],
  ['sharpen it a lot', [{ op: 'sharpen', sigma: 2 }]],
  ['make it sharper', [{ op: 'sharpen', sigma: 1 }]],
  ['less blurry', [{ op: 'sharpen', sigma: 1 }]],
  ['blur', [{ op: 'blur', sigma: 4 }]],
  ['blur it by 5px', [{ op: 'blur', sigma: 5 }]],
  ['blur it heavily', [{ op: 'blur', sigma: 10 }]],
  ['soften the image', [{ op: 'blur', sigma: 4 }]],
  // border
  ['add a border', [{ op: 'border', size: 3, unit: 'percent', color: WHITE }]],
  ['add a 10px red border', [{ op: 'border', size: 10, unit: 'px', color: RED }]],
  ['add a thick black frame', [{ op: 'border', size: 6, unit: 'percent', color: BLACK }]],
  ['add a thin white border', [{ op: 'border', size: 1, unit: 'percent', color: WHITE }]],
  ['border of 20 pixels in blue', [{ op: 'border', size: 20, unit: 'px', color: BLUE }]],
  ['frame it', [{ op: 'border', size: 3, unit: 'percent', color: WHITE }]],
  // format
  ['convert to png', [{ op: 'format', format: 'png' }]],
  ['save as webp', [{ op: 'format', format: 'webp' }]],
  ['as a JPEG', [{ op: 'format', format: 'jpg' }]],
];

test('a table of phrasings → plans', () => {
  const failures: string[] = [];
  for (const [prompt, expected] of TABLE) {
    const plan = parsePrompt(prompt);
    const got = JSON.stringify({ ops: plan.operations, unrecognised: plan.unrecognised });
    const want = JSON.stringify({ ops: expected, unrecognised: [] });
    if (got !== want) failures.push(`"${prompt}"\n   got  ${got}\n   want ${want}`);
  }
  assert.is(failures.length, 0, `${failures.length} of ${TABLE.length} phrasings:\n${failures.join('\n')}`);
});

test('several operations in one prompt, in stage order', () => {
  const plan = parsePrompt('rotate 90 degrees, then make it black and white and add a border');
  assert.equal(plan.operations, [rot(90), grey, { op: 'border', size: 3, unit: 'percent', color: WHITE }]);
  assert.equal(plan.unrecognised, []);
  // Any order in the prompt: the border still comes last, the crop first, the format is kept.
  const any = parsePrompt('Add a red border. Make it brighter; square crop, convert to PNG & sharpen');
  assert.equal(
    any.operations.map((o) => o.op),
    ['crop', 'adjust', 'sharpen', 'border', 'format'],
  );
  // Background work before colour grades (the matte model sees the photo's colours), upscale after them.
  const bg = parsePrompt('make it sepia, upscale 2x and remove the background');
  assert.equal(
    bg.operations.map((o) => o.op),
    ['background', 'grade', 'resize'],
  );
  // The same grade named twice runs once; adjustments add up.
  const twice = parsePrompt('warm golden hour glow, brighter and a bit brighter');
  assert.equal(twice.operations, [grade('warm'), { op: 'adjust', brightness: 1.2 }, { op: 'adjust', brightness: 1.1 }]);
});

test('negations are dropped, not obeyed backwards', () => {
  const plan = parsePrompt("don't crop it, just make it brighter");
  assert.equal(plan.operations, [{ op: 'adjust', brightness: 1.2 }]);
  assert.equal(plan.ignored, ["don't crop it"]);
  const without = parsePrompt('sharpen it without changing the colours');
  assert.equal(without.operations, [{ op: 'sharpen', sigma: 1 }]);
  assert.equal(without.unrecognised, []);
  const no = parsePrompt('no border, add a vintage look');
  assert.equal(no.operations, [grade('vintage')]);
});

test('filler words are fine; content words that no rule took are unrecognised', () => {
  assert.equal(parsePrompt('Could you please make this photo black and white for me? Thanks!').unrecognised, []);
  assert.equal(parsePrompt('add a dragon').unrecognised, ['add a dragon']);
  assert.equal(parsePrompt('make it brighter and put a hat on the cat').unrecognised, ['put a hat on the cat']);
  assert.equal(parsePrompt('remove the person on the left').unrecognised, ['remove the person on the left']);
  assert.equal(parsePrompt('write "happy birthday" at the top').unrecognised.length, 1);
  assert.equal(parsePrompt('make the sky blue').unrecognised, ['make the sky blue']);
});

test('assertEditable: 422 (unprocessable) naming the part and listing abilities; empty plans too', () => {
  for (const prompt of [
    'add a dragon',
    'change his shirt to a suit',
    'please',
    'rotate 90 degrees and add a unicorn',
  ]) {
    try {
      assertEditable(parsePrompt(prompt));
      assert.unreachable(`"${prompt}" should be refused`);
    } catch (err) {
      assert.instance(err, DomainError);
      assert.is((err as DomainError).code, 'unprocessable');
      assert.ok((err as DomainError).message.includes(ABILITIES), 'the message lists what the editor can do');
    }
  }
  assertEditable(parsePrompt('rotate 90 degrees'));
});

test('descriptions: every operation of the table has one', async () => {
  const { describeOperation } = await import('../../../src/features/edit/parse.js');
  for (const [, ops] of TABLE) for (const op of ops) assert.ok(describeOperation(op).length > 3, JSON.stringify(op));
});

test('the names of Object.prototype properties are no colour and no aspect word (issue #29)', async () => {
  const { parseColour } = await import('../../../src/features/edit/colours.js');
  const { aspectOf } = await import('../../../src/features/edit/ruleFragments.js');
  for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    assert.is(parseColour(word), null, word);
    assert.is(aspectOf(undefined, undefined, word), null, word);
  }
});

test.run();
