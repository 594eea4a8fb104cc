/**
 * Describe (POST /api/ai/describe) the frame shown; the answer names the model that wrote it. People who may
 * change things keep it as a caption of the frame in one click (POST /api/frames/:frameId/captions).
 */
import { useState } from 'preact/hooks';
import { api } from '../../../lib/api';
import type { Frame } from '../types';
import { AiFailureNote } from './AiFailureNote';
import { failureOf, frameImage, type AiFailure } from './aiApi';

interface Described {
  description: string;
  model: string;
  note?: string;
}

export function DescribeTool(props: { frame: Frame; canWrite: boolean; onChanged: () => void }) {
  const { frame } = props;
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Described | null>(null);
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const [message, setMessage] = useState('');
  const describe = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    setMessage('');
    try {
      const body = { image: frameImage(frame), ...(prompt.trim() ? { prompt: prompt.trim() } : {}) };
      setAnswer(await api<Described>('POST', '/api/ai/describe', { body }));
    } catch (err) {
      setAnswer(null);
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const save = async () => {
    if (!answer) return;
    try {
      await api('POST', `/api/frames/${encodeURIComponent(frame.id)}/captions`, { body: { text: answer.description } });
      setMessage('Saved as a caption.');
      props.onChanged();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  return (
    <div class="ai-tool ai-describe">
      <form class="ai-form" onSubmit={describe}>
        <label>
          <span>Guide the description (optional)</span>
          <input name="describe-prompt" value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Describing…' : 'Describe'}
        </button>
      </form>
      <AiFailureNote failure={failure} what="describe this picture" />
      {answer && (
        <div class="ai-answer">
          <q class="ai-description">{answer.description}</q>
          <p class="muted ai-model">
            Model: <span class="ai-model-name">{answer.model}</span>
          </p>
          {answer.note && <p class="muted">{answer.note}</p>}
          {props.canWrite && (
            <button type="button" onClick={() => void save()} disabled={message !== ''}>
              Save as caption
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
