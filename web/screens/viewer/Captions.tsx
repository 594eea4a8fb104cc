/**
 * A frame's captions, each with the model that wrote it ("you" for people's own), and a form to write one
 * (POST /api/frames/:frameId/captions; kept by reprocessing). Caption text is JSX text only.
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import type { Frame } from './types';

export function Captions(props: { frame: Frame | undefined; canWrite: boolean; onChanged: () => void }) {
  const [text, setText] = useState('');
  const [message, setMessage] = useState('');
  const frame = props.frame;
  if (!frame) return null;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    try {
      await api('POST', `/api/frames/${encodeURIComponent(frame.id)}/captions`, { body: { text: text.trim() } });
      setText('');
      setMessage('Caption added.');
      props.onChanged();
    } catch (err) {
      setMessage(`Could not add the caption: ${describeError(err)}`);
    }
  };
  return (
    <section class="viewer-section" aria-labelledby="captions-title">
      <h2 id="captions-title">Captions</h2>
      {frame.captions.length === 0 && <p class="muted">No captions yet.</p>}
      <ul class="caption-list">
        {frame.captions.map((c) => (
          <li key={c.id}>
            <q class="caption-text">{c.text}</q>{' '}
            <span class="muted caption-model">— {c.model === 'user' ? 'you' : (c.model ?? 'unknown model')}</span>
          </li>
        ))}
      </ul>
      {props.canWrite && (
        <form class="caption-form" onSubmit={submit}>
          <label>
            <span class="visually-hidden">Write a caption</span>
            <input
              name="caption"
              placeholder="Write a caption…"
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={!text.trim()}>
            Add caption
          </button>
          <span class="muted" role="status">
            {message}
          </span>
        </form>
      )}
    </section>
  );
}
