/**
 * Describe / Tag for the browse selection (issue #28), a button of the selection bar: each selected item is
 * described and tagged in turn (POST /api/ai/describe and /api/ai/tag on its preview; a classification among
 * the person's choices when given), with progress; the suggested tags are pooled (how many items each came
 * for), and the ticked ones are added to every selected item in one save (POST /api/media/bulk `addTags`:
 * one action, which the bar's Undo takes back). Viewers see the answers without the save.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { canWrite } from '../../lib/session';
import type { SelectionContext } from '../../screens/browse/selection';
import { AiFailureNote } from '../../screens/viewer/ai/AiFailureNote';
import { failureOf, type AiFailure } from '../../screens/viewer/ai/aiApi';
import { parseChoices } from '../../screens/viewer/ai/TagTool';
import { describeAndTag, pool, type ItemResult, type Pooled } from './pool';
import './selection-ai.css';

/** Items described and tagged in one run at most (each takes model requests). */
export const MAX_SELECTION_AI = 200;
/** The tag group the saved tags go into (as the viewer's tag editor). */
const GROUP = 'tags';

/** Describes and tags the items one after the other; stops at a missing model (the same for every item). */
function useDescribeTag() {
  const [running, setRunning] = useState(false);
  const [results, setResults] = useState<ItemResult[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const [pooled, setPooled] = useState<Pooled[] | null>(null);
  const [failure, setFailure] = useState<AiFailure | null>(null);
  const stop = useRef(false);
  useEffect(() => () => void (stop.current = true), []);
  const run = async (ids: string[], choices: string[]) => {
    setRunning(true);
    setResults([]);
    setErrors([]);
    setPooled(null);
    setFailure(null);
    stop.current = false;
    const done: ItemResult[] = [];
    for (const id of ids) {
      if (stop.current) break;
      try {
        done.push(await describeAndTag(id, choices));
        setResults([...done]);
      } catch (err) {
        const f = failureOf(err);
        if (f.model) {
          setFailure(f);
          break;
        }
        setErrors((x) => [...x, `${id}: ${describeError(err)}`]);
      }
    }
    setPooled(pool(done));
    setRunning(false);
  };
  return { running, results, errors, pooled, setPooled, failure, setFailure, run, stop: () => (stop.current = true) };
}

export function SelectionAiDialog(props: { ctx: SelectionContext; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const writable = canWrite();
  const [ids, setIds] = useState<string[] | null>(null);
  const [choices, setChoices] = useState('');
  const [message, setMessage] = useState('');
  const work = useDescribeTag();
  const { results, errors, pooled } = work;
  useEffect(() => {
    dialog.current?.showModal();
    props.ctx.target().then(
      (t) => setIds('ids' in t ? t.ids : []),
      (err) => work.setFailure(failureOf(err)),
    );
  }, []);
  const tooMany = props.ctx.count > MAX_SELECTION_AI || (ids !== null && ids.length === 0 && props.ctx.count > 0);
  const run = (e: Event) => {
    e.preventDefault();
    setMessage('');
    if (ids) void work.run(ids, parseChoices(choices));
  };
  const picked = (pooled ?? []).filter((p) => p.picked);
  const save = async () => {
    try {
      const tags = picked.map((p) => ({ label: GROUP, value: p.tag }));
      await api('POST', '/api/media/bulk', { body: { ids, operation: { type: 'addTags', tags } } });
      setMessage(`Added ${tags.length} tag${tags.length === 1 ? '' : 's'} to ${ids?.length ?? 0} items.`);
      props.ctx.done();
    } catch (err) {
      work.setFailure(failureOf(err));
    }
  };
  const toggle = (tag: string) =>
    work.setPooled((l) => l && l.map((p) => (p.tag === tag ? { ...p, picked: !p.picked } : p)));
  const finished = results.length + errors.length;
  return (
    <dialog ref={dialog} class="selection-ai" aria-labelledby="selection-ai-title" onClose={props.onClose}>
      <h2 id="selection-ai-title">Describe / Tag {props.ctx.count} items</h2>
      {tooMany ? (
        <p class="error">Select at most {MAX_SELECTION_AI} items one by one: each is described and tagged in turn.</p>
      ) : (
        <form class="selection-ai-form" onSubmit={run}>
          <label>
            <span>Choices, comma-separated (optional)</span>
            <input name="selection-choices" value={choices} onInput={(e) => setChoices(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" disabled={work.running || !ids?.length}>
            Describe and tag
          </button>
          {work.running && (
            <button type="button" onClick={work.stop}>
              Stop
            </button>
          )}
        </form>
      )}
      {(work.running || pooled) && ids && (
        <label class="selection-ai-progress">
          <span>
            {finished} of {ids.length} done
          </span>{' '}
          <progress max={ids.length} value={finished} />
        </label>
      )}
      <AiFailureNote failure={work.failure} what="describe and tag the selection" />
      <Answers results={results} errors={errors} />
      {pooled && (
        <fieldset class="selection-ai-tags">
          <legend>Tags for the selection</legend>
          {pooled.map((p) => (
            <label key={p.tag}>
              {writable && <input type="checkbox" checked={p.picked} onChange={() => toggle(p.tag)} />}
              <span class="selection-ai-tag">{p.tag}</span>{' '}
              <span class="muted">
                ({p.count} of {results.length})
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <p class="muted" role="status">
        {message}
      </p>
      <div class="dialog-buttons">
        {pooled && writable && (
          <button type="button" class="primary" onClick={() => void save()} disabled={!picked.length || !!message}>
            Add {picked.length} tag{picked.length === 1 ? '' : 's'} to the selection
          </button>
        )}
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

/** Each item's description and tags, with the models that answered, and the items that failed. */
function Answers(props: { results: ItemResult[]; errors: string[] }) {
  return (
    <>
      {props.errors.length > 0 && (
        <details class="error">
          <summary>{props.errors.length} items could not be described or tagged</summary>
          <ul>
            {props.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </details>
      )}
      {props.results.length > 0 && (
        <ol class="selection-ai-items" aria-label="Answers per item">
          {props.results.map((r) => (
            <li key={r.id}>
              <strong>{r.name}</strong>: <q>{r.description}</q> <span class="muted">({r.models.join(', ')})</span>
              <br />
              <span class="muted">{r.tags.join(', ')}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
