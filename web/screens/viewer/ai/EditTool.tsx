/**
 * Edit the item with plain-language steps (POST /api/ai/edit, each step on the last one's result), compare
 * before and after with a slider, undo steps one by one, and save the result as a new version of the item
 * (POST /api/media/:mediaId/versions): the versions list then shows it. Only for people who may change things.
 */
import { useState } from 'preact/hooks';
import { api, apiUrl } from '../../../lib/api';
import { followLink } from '../../../lib/router';
import type { MediaItem } from '../types';
import { AiFailureNote } from './AiFailureNote';
import { editSource, failureOf, type AiFailure } from './aiApi';
import { CompareView } from './CompareView';

interface Step {
  prompt: string;
  url: string;
  model: string;
  operations: string[];
}

interface EditAnswer {
  edited_image: string;
  model?: string;
  operations?: Array<{ op: string }>;
}

/** Instructions the local editor understands, offered as suggestions. */
const EXAMPLES = [
  'rotate 90 degrees',
  'make it black and white',
  'crop to a square',
  'increase the brightness',
  'add a white border',
  'remove the background',
];

export function EditTool(props: { media: MediaItem; onChanged: () => void }) {
  const { media } = props;
  const source = editSource(media);
  const [steps, setSteps] = useState<Step[]>([]);
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const [message, setMessage] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const current = steps.length ? steps[steps.length - 1].url : source;
  const apply = async (e: Event) => {
    e.preventDefault();
    const instruction = prompt.trim();
    if (!instruction) return;
    setBusy(true);
    setFailure(null);
    setMessage('');
    setSaved(null);
    try {
      const r = await api<EditAnswer>('POST', '/api/ai/edit', { body: { image: current, prompt: instruction } });
      const operations = (r.operations ?? []).map((o) => o.op);
      setSteps((s) => [...s, { prompt: instruction, url: r.edited_image, model: r.model ?? 'unknown', operations }]);
      setPrompt('');
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const undo = () => {
    setSteps((s) => s.slice(0, -1));
    setMessage('Step undone.');
  };
  const save = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const r = await api<{ media: { id: string } }>('POST', `/api/media/${encodeURIComponent(media.id)}/versions`, {
        body: { image: current },
      });
      setSteps([]);
      setSaved(r.media.id);
      setMessage('Saved as a new version.');
      props.onChanged();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="ai-tool ai-edit">
      <form class="ai-form" onSubmit={apply}>
        <label>
          <span>Edit instruction</span>
          <input
            name="edit-prompt"
            list="ai-edit-examples"
            placeholder="e.g. make it black and white"
            value={prompt}
            onInput={(e) => setPrompt(e.currentTarget.value)}
            autoComplete="off"
          />
        </label>
        <datalist id="ai-edit-examples">
          {EXAMPLES.map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
        <button type="submit" class="primary" disabled={busy || !prompt.trim()}>
          {busy ? 'Working…' : 'Apply'}
        </button>
      </form>
      <AiFailureNote failure={failure} what="edit this picture" />
      {steps.length > 0 && (
        <>
          <CompareView
            before={source}
            after={current}
            label={media.name}
            ratio={media.width && media.height ? media.width / media.height : 4 / 3}
          />
          <ol class="ai-steps" aria-label="Edit steps">
            {steps.map((s, i) => (
              <li key={i}>
                <span class="ai-step-prompt">{s.prompt}</span>{' '}
                <span class="muted">
                  ({s.operations.join(', ') || 'no change'} · {s.model})
                </span>
              </li>
            ))}
          </ol>
          <div class="ai-actions">
            <button type="button" onClick={undo} disabled={busy}>
              Undo last step
            </button>
            <button type="button" class="primary" onClick={() => void save()} disabled={busy}>
              Save as new version
            </button>
          </div>
        </>
      )}
      <p class="muted" role="status">
        {message}{' '}
        {saved && (
          <a href={apiUrl(`/m/${encodeURIComponent(saved)}`)} onClick={followLink}>
            Open the new version
          </a>
        )}
      </p>
    </div>
  );
}
