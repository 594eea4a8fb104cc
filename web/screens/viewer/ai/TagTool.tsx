/**
 * Tag the frame shown (POST /api/ai/tag): free tags from the vocabulary, or a choice among the person's own
 * comma-separated choices; every answer names the model that scored it. People who may change things keep
 * the ticked tags on the item in one click (POST /api/media/:mediaId/tags, the `tags` group).
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../../../lib/api';
import type { Frame, MediaItem } from '../types';
import { DEFAULT_GROUP } from '../TagEditor';
import { AiFailureNote } from './AiFailureNote';
import { failureOf, frameImage, percent, type AiFailure } from './aiApi';

interface Suggestion {
  tag: string;
  score: number;
  picked: boolean;
}

interface FreeAnswer {
  tags: Array<{ tag: string; confidence: number }>;
  model?: string;
  captionModel?: string;
}
interface ChoiceAnswer {
  classification: string;
  all_scores: Array<{ choice: string; score: number }>;
  model?: string;
}

/** Free tags ticked at first: the best few. */
const PICKED_AT_FIRST = 5;

/** Comma-separated choices, trimmed, without repeats. */
export const parseChoices = (text: string): string[] => [
  ...new Set(
    text
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
  ),
];

export function TagTool(props: { media: MediaItem; frame: Frame; canWrite: boolean; onChanged: () => void }) {
  const [choices, setChoices] = useState('');
  const [busy, setBusy] = useState(false);
  const [list, setList] = useState<Suggestion[] | null>(null);
  const [model, setModel] = useState('');
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const [message, setMessage] = useState('');
  const suggest = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    setMessage('');
    const given = parseChoices(choices);
    try {
      const image = frameImage(props.frame);
      if (given.length) {
        const r = await api<ChoiceAnswer>('POST', '/api/ai/tag', { body: { image, choices: given } });
        setList(r.all_scores.map((s) => ({ tag: s.choice, score: s.score, picked: s.choice === r.classification })));
        setModel(r.model ?? 'unknown model');
      } else {
        const r = await api<FreeAnswer>('POST', '/api/ai/tag', { body: { image } });
        setList(r.tags.map((t, i) => ({ tag: t.tag, score: t.confidence, picked: i < PICKED_AT_FIRST })));
        setModel([r.model ?? 'unknown model', r.captionModel].filter(Boolean).join(' + '));
      }
    } catch (err) {
      setList(null);
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const picked = (list ?? []).filter((s) => s.picked);
  const save = async () => {
    setBusy(true);
    let added = 0;
    let already = 0;
    try {
      for (const s of picked) {
        try {
          await api('POST', `/api/media/${encodeURIComponent(props.media.id)}/tags`, {
            body: { label: DEFAULT_GROUP, value: s.tag },
          });
          added++;
        } catch (err) {
          if (err instanceof ApiError && err.status === 409) already++;
          else throw err;
        }
      }
      setMessage(`Saved ${added} tag${added === 1 ? '' : 's'}${already ? ` (${already} already there)` : ''}.`);
      props.onChanged();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (tag: string) => setList((l) => l && l.map((s) => (s.tag === tag ? { ...s, picked: !s.picked } : s)));
  return (
    <div class="ai-tool ai-tag">
      <form class="ai-form" onSubmit={suggest}>
        <label>
          <span>Choices, comma-separated (optional)</span>
          <input name="tag-choices" value={choices} onInput={(e) => setChoices(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy && !list ? 'Tagging…' : 'Suggest tags'}
        </button>
      </form>
      <AiFailureNote failure={failure} what="tag this picture" />
      {list && (
        <div class="ai-answer">
          <p class="muted ai-model">
            Model: <span class="ai-model-name">{model}</span>
          </p>
          <ul class="ai-tag-list">
            {list.map((s) => (
              <li key={s.tag}>
                <label>
                  {props.canWrite && (
                    <input type="checkbox" checked={s.picked} onChange={() => toggle(s.tag)} name="ai-tag" />
                  )}
                  <span class="ai-tag-name">{s.tag}</span> <span class="muted">{percent(s.score)}</span>
                </label>
              </li>
            ))}
          </ul>
          {props.canWrite && (
            <button type="button" onClick={() => void save()} disabled={busy || picked.length === 0}>
              Save {picked.length} tag{picked.length === 1 ? '' : 's'}
            </button>
          )}
        </div>
      )}
      <p class="muted" role="status">
        {message}
      </p>
    </div>
  );
}
