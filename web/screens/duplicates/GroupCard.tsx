/**
 * One duplicate group: its items side by side (picture, size, resolution, date, folder), the one to keep
 * (our suggestion preselected), what to carry over to it, and the two actions: keep it and trash the others,
 * or say they are not duplicates.
 */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { formatBytes, formatDate } from '../../components/format';
import { dismissGroup, resolveGroup, type DupGroup, type DupItem } from './duplicatesApi';

const distinct = (values: Array<string | undefined>) => [...new Set(values.filter((v): v is string => !!v))];

export function GroupCard(props: {
  datasetId: string;
  group: DupGroup;
  index: number;
  canWrite: boolean;
  onDone: (message: string) => void;
}) {
  const { group } = props;
  const [keepId, setKeepId] = useState(group.keepId);
  const keep = group.items.find((m) => m.id === keepId)!;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const others = group.items.filter((m) => m.id !== keepId);
  const title = `Group ${props.index + 1}: ${group.items.length} ${group.kind === 'exact' ? 'exact copies' : 'near duplicates'}`;
  const act = async (run: () => Promise<unknown>, message: string) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      props.onDone(message);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  return (
    <section class="dup-group" aria-label={title}>
      <h2>
        {title}
        <span class="muted">
          {group.kind === 'exact' ? ' — the same file' : ` — similarity ${group.similarity.toFixed(3)}`}
        </span>
      </h2>
      <ul class="dup-items">
        {group.items.map((m) => (
          <DupCard
            key={m.id}
            item={m}
            groupId={group.id}
            chosen={m.id === keepId}
            suggested={m.id === group.keepId}
            canWrite={props.canWrite}
            onChoose={() => setKeepId(m.id)}
          />
        ))}
      </ul>
      {props.canWrite && (
        <GroupActions datasetId={props.datasetId} group={group} keep={keep} others={others} busy={busy} act={act} />
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** What to carry over to the kept item, and the two actions. */
function GroupActions(props: {
  datasetId: string;
  group: DupGroup;
  keep: DupItem;
  others: DupItem[];
  busy: boolean;
  act: (run: () => Promise<unknown>, message: string) => Promise<void>;
}) {
  const { group, keep, others, busy, act } = props;
  const [mergeTags, setMergeTags] = useState(true);
  const names = distinct(group.items.map((m) => m.name));
  const descriptions = distinct(group.items.map((m) => m.metadata.description));
  const [name, setName] = useState<string>('');
  const [description, setDescription] = useState<string>('');
  const keepId = keep.id;
  return (
    <div class="dup-actions">
      <label class="check">
        <input type="checkbox" checked={mergeTags} onChange={(e) => setMergeTags(e.currentTarget.checked)} />
        Add the others’ tags to the kept item
      </label>
      {names.length > 1 && (
        <label>
          Name{' '}
          <select value={name} onChange={(e) => setName(e.currentTarget.value)}>
            <option value="">keep “{keep.name}”</option>
            {names
              .filter((n) => n !== keep.name)
              .map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
          </select>
        </label>
      )}
      {descriptions.length > 0 && (
        <label>
          Description{' '}
          <select value={description} onChange={(e) => setDescription(e.currentTarget.value)}>
            <option value="">keep the kept item’s</option>
            {descriptions
              .filter((d) => d !== keep.metadata.description)
              .map((d) => (
                <option key={d} value={d}>
                  {d.length > 60 ? `${d.slice(0, 60)}…` : d}
                </option>
              ))}
          </select>
        </label>
      )}
      <button
        type="button"
        class="primary"
        disabled={busy}
        onClick={() =>
          act(
            () =>
              resolveGroup(props.datasetId, {
                keepId,
                trashIds: others.map((m) => m.id),
                mergeTags,
                name: name || undefined,
                description: description || undefined,
              }),
            `Kept ${keep.name}; moved ${others.length} to the trash.`,
          )
        }
      >
        Keep selected, move {others.length} to trash
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          act(
            () =>
              dismissGroup(
                props.datasetId,
                group.items.map((m) => m.id),
              ),
            'Marked as not duplicates.',
          )
        }
      >
        Not duplicates
      </button>
    </div>
  );
}

function DupCard(props: {
  item: DupItem;
  groupId: string;
  chosen: boolean;
  suggested: boolean;
  canWrite: boolean;
  onChoose: () => void;
}) {
  const m = props.item;
  const date = m.takenAt ?? m.createdAt;
  return (
    <li class={`dup-item${props.chosen ? ' chosen' : ''}`}>
      {m.thumbnailUrl ? (
        <img src={m.thumbnailUrl} alt={m.name} loading="lazy" />
      ) : (
        <div class="dup-noimg">{m.type}</div>
      )}
      <dl>
        <dt>Name</dt>
        <dd>{m.name}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(m.sizeBytes)}</dd>
        <dt>Resolution</dt>
        <dd>{m.width && m.height ? `${m.width} × ${m.height}` : '—'}</dd>
        <dt>{m.takenAt ? 'Taken' : 'Added'}</dt>
        <dd>{formatDate(date)}</dd>
        <dt>Folder</dt>
        <dd>{m.folder.name ?? 'Collection root'}</dd>
        <dt>Tags</dt>
        <dd>
          {Object.values(m.metadata.tags ?? {})
            .flat()
            .join(', ') || '—'}
        </dd>
      </dl>
      {props.suggested && <p class="dup-suggested">Suggested to keep</p>}
      {props.canWrite && (
        <label class="dup-keep">
          <input type="radio" name={`keep-${props.groupId}`} checked={props.chosen} onChange={props.onChoose} />
          Keep this one
        </label>
      )}
    </li>
  );
}
