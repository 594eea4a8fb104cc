import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../platform/packageRoot.js';

/** The built-in zero-shot tagging vocabulary (src/features/ai/data/vocabulary.txt), read once. */
let cached: string[] | null = null;
export function vocabulary(): string[] {
  if (!cached) {
    const text = readFileSync(path.join(PACKAGE_ROOT, 'src', 'features', 'ai', 'data', 'vocabulary.txt'), 'utf8');
    cached = [
      ...new Set(
        text
          .split('\n')
          .map((l) => l.replace(/#.*/, '').trim())
          .filter(Boolean),
      ),
    ];
  }
  return cached;
}

const STOPWORDS = new Set(
  [
    'a an the of in on at to with and or but is are was were be been being it its this that these those there here',
    'of for from by as into onto over under near next up down out off some any one two three several many few each',
    'other another his her their our your my image photo picture view close shot showing shows shown depicting scene',
    'background foreground front side top bottom left right middle center thing things something way lot kind type sort',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Candidate tags from a caption: its content words and adjacent word pairs
 * ("red bus", "city street"). Crude, but it lets the caption's subject
 * compete with the vocabulary in zero-shot scoring.
 */
export function captionTerms(caption: string): string[] {
  const words = caption
    .toLowerCase()
    .replace(/<[^>]*>/g, ' ')
    .split(/[^a-z-]+/)
    .filter((w) => w.length > 2 && !STOPWORDS.has(w));
  const out = new Set<string>(words);
  for (let i = 0; i + 1 < words.length; i++) out.add(`${words[i]} ${words[i + 1]}`);
  return [...out].slice(0, 40);
}
