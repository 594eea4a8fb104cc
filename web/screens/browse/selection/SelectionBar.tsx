/**
 * The bar over the grid while items are selected: how many, "Select all N matching", the actions (tags,
 * move, reprocess, and any other feature's, addSelectionAction), progress and per-item errors, and the
 * Undo of the last bulk action.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../../../lib/api';
import { subscribe } from '../../../lib/events';
import type { BrowseState } from '../browseState';
import type { PageCache } from '../pageCache';
import { describeAnswer, runBulk, targetOf, type BulkAnswer } from './bulkApi';
import { BulkTagDialog } from './BulkTagDialog';
import { MoveDialog } from './MoveDialog';
import {
  clearSelection,
  extraActions,
  isSelecting,
  selectAllMatching,
  selectedCount,
  selection,
  type SelectionContext,
} from './selection';
import { loadUndoOffer, undoLast, undoOffer, undoStatus } from './undo';
import './selection.css';

export interface SelectionBarProps {
  datasetId: string;
  state: BrowseState;
  cache: PageCache;
  canWrite: boolean;
  rootName: string;
  /** After a change: reload the listing (and the folder tree, tags). */
  onChanged: () => void;
}

/** The outcome of the last action run from the bar. */
interface Outcome {
  text: string;
  errors: BulkAnswer['errors'];
  failed?: boolean;
}

export function SelectionBar(props: SelectionBarProps) {
  const [dialog, setDialog] = useState<'tags' | 'move' | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [progress, setProgress] = useState<string | null>(null);
  useBarEffects(props.canWrite, setProgress);
  const total = props.cache.total.value ?? 0;
  const s = selection.value;
  const count = selectedCount(total, s);
  const ctx: SelectionContext = {
    datasetId: props.datasetId,
    count,
    target: () => targetOf(props.datasetId, props.state, props.cache, selection.value),
    done: () => {
      clearSelection();
      props.onChanged();
    },
  };

  /** Runs one bulk operation on the selection; its answer becomes the outcome and the Undo offer. */
  const run = async (verb: string, operation: Record<string, unknown>, keepSelection = false) => {
    setBusy(`${verb}…`);
    setOutcome(null);
    try {
      const answer = await runBulk(await ctx.target(), operation);
      const text = describeAnswer(verb, answer);
      setOutcome({ text, errors: answer.errors });
      undoStatus.value = null;
      // Reprocessing cannot be undone (undoable: false): no Undo is offered beside its outcome.
      undoOffer.value = answer.actionId ? { actionId: answer.actionId, text } : null;
      if (!keepSelection) clearSelection();
      props.onChanged();
      return answer;
    } catch (err) {
      setOutcome({ text: `Nothing was changed: ${describeError(err)}`, errors: [], failed: true });
      return null;
    } finally {
      setBusy(null);
      setProgress(null);
    }
  };

  const offer = undoOffer.value;
  const status = busy ?? undoStatus.value;
  const showBar = isSelecting.value;
  if (!showBar && !offer && !outcome && !status) return null;
  return (
    <div class="selection-area">
      {showBar ? (
        <Toolbar
          ctx={ctx}
          total={total}
          all={s.all}
          canWrite={props.canWrite}
          busy={!!busy}
          onDialog={setDialog}
          onRun={(verb, type) => void run(verb, { type })}
        />
      ) : null}
      <Status status={status} progress={progress} outcome={outcome} onDismiss={() => setOutcome(null)} />
      {offer && !busy && props.canWrite ? (
        <div class="undo-toast" role="status">
          <span>{offer.text}</span>
          <button type="button" onClick={() => void undoLast(props.onChanged)}>
            Undo
          </button>
          <button type="button" aria-label="Dismiss" onClick={() => (undoOffer.value = null)}>
            ×
          </button>
        </div>
      ) : null}
      {dialog === 'tags' ? (
        <BulkTagDialog
          datasetId={props.datasetId}
          state={props.state}
          cache={props.cache}
          count={count}
          run={(verb, op) => run(verb, op, true)}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'move' ? (
        <MoveDialog
          datasetId={props.datasetId}
          rootName={props.rootName}
          count={count}
          onMove={async (destinationPath) => {
            setDialog(null);
            await run('Moved', { type: 'move', destinationPath });
          }}
          onClose={() => setDialog(null)}
        />
      ) : null}
    </div>
  );
}

function Status(props: {
  status: string | null;
  progress: string | null;
  outcome: Outcome | null;
  onDismiss: () => void;
}) {
  const { status, progress, outcome } = props;
  return (
    <>
      <p class="selection-status" role="status">
        {status ? `${status}${progress ? ` ${progress}` : ''}` : outcome?.failed ? '' : (outcome?.text ?? '')}
      </p>
      {outcome?.failed ? (
        <p class="error" role="alert">
          {outcome.text}
        </p>
      ) : null}
      {outcome && outcome.errors.length ? (
        <details class="selection-errors">
          <summary>
            {outcome.errors.length.toLocaleString()} {outcome.errors.length === 1 ? 'item' : 'items'} could not be
            changed
          </summary>
          <ul>
            {outcome.errors.map((e) => (
              <li key={e.id}>
                <code>{e.id}</code>: {e.message}
              </li>
            ))}
          </ul>
          <button type="button" onClick={props.onDismiss}>
            Dismiss
          </button>
        </details>
      ) : null}
    </>
  );
}

/** The Undo offer on load, bulk progress from the event stream, and Esc clearing the selection anywhere. */
function useBarEffects(canWrite: boolean, setProgress: (text: string | null) => void) {
  useEffect(() => void (canWrite && loadUndoOffer()), [canWrite]);
  useEffect(
    () =>
      subscribe('job.progress', (e) => {
        if (e.job !== 'bulk' || typeof e.total !== 'number' || typeof e.done !== 'number') return;
        setProgress(e.status === 'done' ? null : `${e.done.toLocaleString()} of ${e.total.toLocaleString()} done`);
      }),
    [],
  );
  // Esc clears the selection wherever focus is (a dialog's Esc closes the dialog first).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('dialog[open]') && isSelecting.value)
        clearSelection();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

function Toolbar(props: {
  ctx: SelectionContext;
  total: number;
  all: boolean;
  canWrite: boolean;
  busy: boolean;
  onDialog: (d: 'tags' | 'move') => void;
  onRun: (verb: string, type: string) => void;
}) {
  const { ctx, total, busy } = props;
  const count = ctx.count;
  return (
    <div class="selection-bar" role="toolbar" aria-label="Selection">
      <span class="selection-count" aria-live="polite">
        {count.toLocaleString()} selected
      </span>
      {!props.all && total > count ? (
        <button type="button" onClick={selectAllMatching}>
          Select all {total.toLocaleString()} matching
        </button>
      ) : null}
      {props.canWrite ? (
        <>
          <button type="button" disabled={!count || busy} onClick={() => props.onDialog('tags')}>
            Tags…
          </button>
          <button type="button" disabled={!count || busy} onClick={() => props.onDialog('move')}>
            Move…
          </button>
          <button type="button" disabled={!count || busy} onClick={() => props.onRun('Queued again', 'reprocess')}>
            Reprocess
          </button>
          <button
            type="button"
            disabled={!count || busy}
            onClick={() => props.onRun('Marked as favourite', 'favorite')}
          >
            Favourite
          </button>
          <button type="button" disabled={!count || busy} onClick={() => props.onRun('Archived', 'archive')}>
            Archive
          </button>
          <button type="button" disabled={!count || busy} onClick={() => props.onRun('Moved to the trash', 'delete')}>
            Move to trash
          </button>
        </>
      ) : null}
      {extraActions.value
        .filter((a) => props.canWrite || !a.writes)
        .map((a) => (
          <button key={a.id} type="button" disabled={!count || busy} onClick={() => void a.run(ctx)}>
            {a.label}
          </button>
        ))}
      <button type="button" onClick={clearSelection} aria-keyshortcuts="Escape">
        Clear
      </button>
    </div>
  );
}
