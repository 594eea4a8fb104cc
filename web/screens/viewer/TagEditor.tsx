/**
 * The item's tags (metadata.tags: group → values): remove one, or add one with suggestions from the
 * collection's tags (GET /api/dataset/:id/tags). Type `value`, or `group: value` for another group.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import type { MediaItem } from './types';

/** The group a plain value goes into. */
export const DEFAULT_GROUP = 'tags';

/** "group: value" → [group, value]; a plain value goes into DEFAULT_GROUP. */
export function parseTag(input: string): [string, string] | null {
  const at = input.indexOf(':');
  const [group, value] =
    at > 0 ? [input.slice(0, at).trim(), input.slice(at + 1).trim()] : [DEFAULT_GROUP, input.trim()];
  return group && value ? [group, value] : null;
}

export function TagEditor(props: { media: MediaItem; canWrite: boolean; onMedia: (m: MediaItem) => void }) {
  const { media } = props;
  const [input, setInput] = useState('');
  const [message, setMessage] = useState('');
  const [suggestions, setSuggestions] = useState<string[]>([]);
  useEffect(() => {
    api<{ tags: Record<string, string[]> }>('GET', `/api/dataset/${encodeURIComponent(media.datasetId)}/tags`)
      .then((r) =>
        setSuggestions(
          Object.entries(r.tags).flatMap(([g, vs]) => vs.map((v) => (g === DEFAULT_GROUP ? v : `${g}: ${v}`))),
        ),
      )
      .catch(() => setSuggestions([]));
  }, [media.datasetId]);
  const groups = Object.entries(media.metadata.tags ?? {});
  const add = async (e: Event) => {
    e.preventDefault();
    const tag = parseTag(input);
    if (!tag) return;
    try {
      const r = await api<{ media: MediaItem }>('POST', `/api/media/${encodeURIComponent(media.id)}/tags`, {
        body: { label: tag[0], value: tag[1] },
      });
      setInput('');
      setMessage(`Added ${tag[1]}.`);
      props.onMedia({ ...media, metadata: r.media.metadata });
    } catch (err) {
      setMessage(`Could not add: ${describeError(err)}`);
    }
  };
  const remove = async (label: string, value: string) => {
    try {
      const r = await api<MediaItem>('DELETE', `/api/media/${encodeURIComponent(media.id)}/tags`, {
        body: { label, value },
      });
      setMessage(`Removed ${value}.`);
      props.onMedia({ ...media, metadata: r.metadata });
    } catch (err) {
      setMessage(`Could not remove: ${describeError(err)}`);
    }
  };
  return (
    <section class="viewer-section" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      {groups.length === 0 && <p class="muted">No tags.</p>}
      <ul class="tag-list">
        {groups.flatMap(([group, values]) =>
          values.map((value) => (
            <li key={`${group}\u0000${value}`} class="chip tag-chip">
              {group !== DEFAULT_GROUP && <span class="muted">{group}: </span>}
              <span class="tag-value">{value}</span>
              {props.canWrite && (
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={`Remove tag ${value}`}
                  onClick={() => void remove(group, value)}
                >
                  ×
                </button>
              )}
            </li>
          )),
        )}
      </ul>
      {props.canWrite && (
        <form class="tag-form" onSubmit={add}>
          <label>
            <span class="visually-hidden">Add a tag</span>
            <input
              name="tag"
              list="tag-suggestions"
              placeholder="Add a tag (or group: value)…"
              value={input}
              onInput={(e) => setInput(e.currentTarget.value)}
              autoComplete="off"
            />
          </label>
          <datalist id="tag-suggestions">
            {suggestions.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
          <button type="submit" disabled={!parseTag(input)}>
            Add tag
          </button>
          <span class="muted" role="status">
            {message}
          </span>
        </form>
      )}
    </section>
  );
}
