/**
 * The tags of the selected items, each with its state across them: on all (checked), on some (mixed: "3 of
 * 5"), and a field to add one to all. Checking a tag adds it to every selected item, unchecking removes it
 * from every one; each change is one bulk action (Undo takes back the last). For "all matching", each tag's
 * count is the listing's total with that tag as a filter too.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../../../lib/api';
import { parseTag } from '../../viewer/TagEditor';
import { browseParams, type BrowseState } from '../browseState';
import type { PageCache } from '../pageCache';
import type { Page } from '../browseApi';
import { itemsAt, type BulkAnswer } from './bulkApi';
import { selection } from './selection';

/** Most tags whose count is asked for one by one ("all matching"). */
const MAX_COUNTED = 40;

interface TagCount {
  group: string;
  value: string;
  count: number;
}

const key = (group: string, value: string) => `${group}\u0000${value}`;

/** Each tag on any selected item with the number of selected items carrying it. */
async function countTags(datasetId: string, state: BrowseState, cache: PageCache): Promise<TagCount[]> {
  const s = selection.value;
  const counts = new Map<string, TagCount>();
  if (!s.all) {
    // Fresh pages: the grid's copies may predate a change (another tab, the last action).
    const items = await itemsAt(datasetId, state, cache, [...s.indices], true);
    for (const m of items) {
      const tags = ((m as unknown as { metadata?: { tags?: Record<string, string[]> } }).metadata?.tags ??
        {}) as Record<string, string[]>;
      for (const [group, values] of Object.entries(tags))
        for (const value of values) {
          const c = counts.get(key(group, value)) ?? { group, value, count: 0 };
          c.count++;
          counts.set(key(group, value), c);
        }
    }
  } else {
    const r = await api<{ tags: Record<string, string[]> }>(
      'GET',
      `/api/dataset/${encodeURIComponent(datasetId)}/tags`,
    );
    const pairs = Object.entries(r.tags).flatMap(([group, values]) => values.map((value) => ({ group, value })));
    for (const { group, value } of pairs.slice(0, MAX_COUNTED)) {
      const page = await api<Page>('GET', `/api/dataset/${encodeURIComponent(datasetId)}/media`, {
        query: { ...browseParams(state), tagFilters: JSON.stringify({ [group]: [value] }), limit: 1, offset: 0 },
      });
      if (page.pagination.total > 0) counts.set(key(group, value), { group, value, count: page.pagination.total });
    }
  }
  return [...counts.values()].sort((a, b) => a.group.localeCompare(b.group) || a.value.localeCompare(b.value));
}

export function BulkTagDialog(props: {
  datasetId: string;
  state: BrowseState;
  cache: PageCache;
  count: number;
  run: (verb: string, operation: Record<string, unknown>) => Promise<BulkAnswer | null>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [tags, setTags] = useState<TagCount[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const reload = () =>
    countTags(props.datasetId, props.state, props.cache)
      .then(setTags)
      .catch((err) => setError(describeError(err)));
  useEffect(() => {
    dialog.current?.showModal();
    void reload();
  }, []);

  const apply = async (verb: string, operation: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    const answer = await props.run(verb, operation);
    if (!answer) setError('Nothing was changed (see the message below the bar).');
    await reload();
    setBusy(false);
  };
  const onToggle = (t: TagCount) =>
    t.count >= props.count
      ? apply(`Removed “${t.value}” from`, { type: 'removeTags', tags: [{ label: t.group, value: t.value }] })
      : apply(`Added “${t.value}” to`, { type: 'addTags', tags: [{ label: t.group, value: t.value }] });
  const onAdd = async (e: Event) => {
    e.preventDefault();
    const tag = parseTag(input);
    if (!tag) return setError('Type a tag, or group: tag');
    setInput('');
    await apply(`Added “${tag[1]}” to`, { type: 'addTags', tags: [{ label: tag[0], value: tag[1] }] });
  };

  return (
    <dialog ref={dialog} class="bulk-dialog" aria-labelledby="bulk-tags-title" onClose={props.onClose}>
      <h2 id="bulk-tags-title">Tags of {props.count.toLocaleString()} selected items</h2>
      {tags === null && !error ? <p role="status">Counting tags…</p> : null}
      {tags && tags.length === 0 ? <p>None of the selected items has a tag.</p> : null}
      {tags && tags.length ? (
        <ul class="bulk-tags" aria-label="Tags of the selection">
          {tags.map((t) => (
            <li key={key(t.group, t.value)}>
              <TriState tag={t} of={props.count} disabled={busy} onToggle={() => void onToggle(t)} />
              <button
                type="button"
                class="link-button"
                disabled={busy}
                aria-label={`Remove ${t.value} from all selected items`}
                onClick={() =>
                  void apply(`Removed “${t.value}” from`, {
                    type: 'removeTags',
                    tags: [{ label: t.group, value: t.value }],
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <form onSubmit={onAdd} class="bulk-add">
        <label>
          Add a tag to all <input value={input} maxLength={500} onInput={(e) => setInput(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={busy || !input.trim()}>
          Add
        </button>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-buttons">
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
    </dialog>
  );
}

/** A checkbox that is checked (every item), mixed (some) or clear; its label says how many. */
function TriState(props: { tag: TagCount; of: number; disabled: boolean; onToggle: () => void }) {
  const ref = useRef<HTMLInputElement>(null);
  const all = props.tag.count >= props.of;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = !all;
  });
  const label = props.tag.group === 'tags' ? props.tag.value : `${props.tag.group}: ${props.tag.value}`;
  return (
    <label class="tristate">
      <input ref={ref} type="checkbox" checked={all} disabled={props.disabled} onChange={props.onToggle} />
      <span>{label}</span>
      <span class="muted">{all ? 'all' : `${props.tag.count.toLocaleString()} of ${props.of.toLocaleString()}`}</span>
    </label>
  );
}
