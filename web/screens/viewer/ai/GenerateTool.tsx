/**
 * Generate a picture from a prompt (POST /api/ai/generate with `Prefer: respond-async`): the job's progress
 * comes from the live event stream (`job.progress` events named `generate`, with its jobId), its outcome from
 * GET /api/ai/jobs/:id; the result is saved into a folder the person picks (an upload of the generated file,
 * POST /api/upload/multipart). Only for people who may change things.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiUrl } from '../../../lib/api';
import { subscribe } from '../../../lib/events';
import { followLink } from '../../../lib/router';
import type { MediaItem } from '../types';
import { sendFile } from '../../upload/send';
import { AiFailureNote } from './AiFailureNote';
import { failureOf, folderOf, percent, type AiFailure } from './aiApi';
import { FolderPicker } from './FolderPicker';

interface JobView {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  /** Whether an event of the stream has reported on this job (else only the status route has). */
  live?: boolean;
  result?: { url: string; model: string; width: number; height: number };
  error?: { error: string; message: string };
}

const RATIOS = ['1:1', '4:3', '3:4', '16:9', '9:16'];
/** How often the job's status is read while no event has come (the events are the fast path). */
const POLL_MS = 3000;

/** A file name from the prompt: its first words, letters and digits only. */
export const generatedName = (prompt: string): string =>
  `generated ${prompt
    .replace(/[^\p{L}\p{N} -]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 48)}.png`;

export function GenerateTool(props: { media: MediaItem }) {
  const { media } = props;
  const [prompt, setPrompt] = useState('');
  const [ratio, setRatio] = useState('1:1');
  /** The prompt of the job shown (the field may change after it). */
  const [asked, setAsked] = useState('');
  const [job, setJob] = useState<JobView | null>(null);
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const jobId = useRef<string | null>(null);
  const running = !!job && (job.status === 'queued' || job.status === 'running');

  const check = async (id: string) => {
    try {
      const view = await api<JobView>('GET', `/api/ai/jobs/${encodeURIComponent(id)}`);
      if (jobId.current !== id) return;
      setJob((j) => ({ ...view, live: j?.live }));
      if (view.status === 'failed') setFailure({ message: view.error?.message ?? 'the generation failed' });
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  useEffect(
    () =>
      subscribe('job.progress', (d) => {
        if (d.job !== 'generate' || !jobId.current || d.jobId !== jobId.current) return;
        const progress = typeof d.progress === 'number' ? d.progress : 0;
        setJob((j) => {
          if (!j) return j;
          return j.status === 'succeeded' ? { ...j, live: true } : { ...j, status: 'running', progress, live: true };
        });
        if (d.status === 'succeeded' || d.status === 'failed') void check(jobId.current);
      }),
    [],
  );
  useEffect(() => {
    if (!running || !job) return;
    const timer = window.setInterval(() => void check(job.id), POLL_MS);
    return () => window.clearInterval(timer);
  }, [running, job?.id]);

  const start = async (e: Event) => {
    e.preventDefault();
    setFailure(null);
    try {
      const r = await api<{ jobId: string; status: 'queued' | 'running' }>('POST', '/api/ai/generate', {
        body: { prompt: prompt.trim(), aspectRatio: ratio },
        headers: { prefer: 'respond-async' },
      });
      jobId.current = r.jobId;
      setAsked(prompt.trim());
      setJob({ id: r.jobId, status: r.status, progress: 0 });
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  return (
    <div class="ai-tool ai-generate">
      <form class="ai-form" onSubmit={start}>
        <label>
          <span>Prompt</span>
          <textarea name="generate-prompt" rows={2} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        </label>
        <label>
          <span>Shape</span>
          <select name="generate-ratio" value={ratio} onChange={(e) => setRatio(e.currentTarget.value)}>
            {RATIOS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={running || !prompt.trim()}>
          {running ? 'Generating…' : 'Generate'}
        </button>
      </form>
      {job && job.status !== 'failed' && (
        <div class="ai-progress" data-live={job.live ? 'true' : 'false'}>
          <label>
            <span>{job.status === 'succeeded' ? 'Done' : job.status === 'queued' ? 'Waiting' : 'Generating'}</span>{' '}
            <progress max={1} value={job.status === 'succeeded' ? 1 : job.progress} />{' '}
            <span class="ai-progress-value">{percent(job.status === 'succeeded' ? 1 : job.progress)}</span>
          </label>
        </div>
      )}
      <AiFailureNote failure={failure} what="generate a picture" />
      {job?.result && <GeneratedResult key={job.id} result={job.result} prompt={asked} media={media} />}
    </div>
  );
}

/** The generated picture, its model, and saving it into a folder the person picks (an upload of its file). */
function GeneratedResult(props: { result: NonNullable<JobView['result']>; prompt: string; media: MediaItem }) {
  const { result, media } = props;
  const [folder, setFolder] = useState(folderOf(media));
  const [saved, setSaved] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const save = async () => {
    setSaving(true);
    setFailure(null);
    try {
      const blob = await (await fetch(result.url)).blob();
      const file = new File([blob], generatedName(props.prompt || 'picture'), { type: blob.type || 'image/png' });
      const ack = await sendFile({
        datasetId: media.datasetId,
        path: folder || undefined,
        file,
        signal: new AbortController().signal,
        onProgress: () => undefined,
      });
      setSaved(ack.mediaId);
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div class="ai-answer">
      <img class="ai-generated" src={result.url} alt={`Generated: ${props.prompt}`} />
      <p class="muted ai-model">
        Model: <span class="ai-model-name">{result.model}</span> · {result.width}×{result.height}
      </p>
      <FolderPicker datasetId={media.datasetId} value={folder} onChange={setFolder} />
      <button type="button" class="primary" onClick={() => void save()} disabled={saving || saved !== null}>
        {saving ? 'Saving…' : 'Save to folder'}
      </button>
      <AiFailureNote failure={failure} what="save the picture" />
      <p class="muted" role="status">
        {saved && (
          <>
            Saved.{' '}
            <a href={apiUrl(`/m/${encodeURIComponent(saved)}`)} onClick={followLink}>
              Open the new item
            </a>
          </>
        )}
      </p>
    </div>
  );
}
