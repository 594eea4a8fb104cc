/** The per-item part of the selection's Describe / Tag: one item's description and tags, and pooling them. */
import { api } from '../../lib/api';

export interface ItemResult {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** The models that answered (captioner, tagger). */
  models: string[];
}

export interface Pooled {
  tag: string;
  /** Items it was suggested for. */
  count: number;
  picked: boolean;
}

interface ItemView {
  media: { name: string; blob: string; frames: Array<{ previewUrl?: string | null; blob: string }> };
}

/** Free tags kept per item: the best few (as the viewer's tag tool ticks). */
const PER_ITEM = 5;

/** One item described and tagged (its first frame's preview; a classification among `choices` when given). */
export async function describeAndTag(id: string, choices: string[]): Promise<ItemResult> {
  const { media } = await api<ItemView>('GET', `/api/media/${encodeURIComponent(id)}`);
  const frame = media.frames[0];
  const image = frame ? frame.previewUrl || frame.blob : media.blob;
  const described = await api<{ description: string; model: string }>('POST', '/api/ai/describe', { body: { image } });
  const out = { id, name: media.name, description: described.description };
  if (choices.length) {
    const r = await api<{ classification: string; model?: string }>('POST', '/api/ai/tag', {
      body: { image, choices },
    });
    return { ...out, tags: [r.classification], models: [described.model, r.model ?? 'unknown model'] };
  }
  const r = await api<{ tags: Array<{ tag: string }>; model?: string }>('POST', '/api/ai/tag', { body: { image } });
  const tags = r.tags.slice(0, PER_ITEM).map((t) => t.tag);
  return { ...out, tags, models: [described.model, r.model ?? 'unknown model'] };
}

/** Tags by how many items they were suggested for, most first; those of at least half the items ticked. */
export function pool(results: Array<{ tags: string[] }>): Pooled[] {
  const counts = new Map<string, number>();
  for (const a of results) for (const t of new Set(a.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([tag, count]) => ({ tag, count, picked: count * 2 >= results.length }));
}
