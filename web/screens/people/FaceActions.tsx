/**
 * What a writer does with the faces selected in a person's view: move them to another person (a picker of
 * the collection's people), out to a new person ("Not this person"), or make the one selected the cover.
 */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { fetchPeople, moveFaces, personName, updatePerson, type Person } from './peopleApi';

export function FaceActions(props: {
  person: Person;
  datasetId: string;
  selected: string[];
  onDone: (text: string, sourceRemains: boolean) => void;
  onError: (text: string) => void;
}) {
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const others = useLoad(
    (signal) => fetchPeople(props.datasetId, { offset: 0, limit: 500, includeHidden: false }, signal),
    [props.datasetId, props.person.size],
  );
  const n = props.selected.length;
  const faces = `${n} ${n === 1 ? 'face' : 'faces'}`;
  const run = async (work: () => Promise<[string, boolean]>) => {
    setBusy(true);
    try {
      const [text, remains] = await work();
      props.onDone(text, remains);
    } catch (err) {
      props.onError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const choices = (others.data?.clusters ?? []).filter((p) => p.id !== props.person.id);
  const chosen = choices.find((p) => p.id === target);
  return (
    <div class="face-actions" role="group" aria-label="Selected faces">
      <span>{n === 0 ? 'Select faces that are not this person' : `${faces} selected`}</span>
      <button
        type="button"
        disabled={n === 0 || busy}
        onClick={() =>
          void run(async () => {
            const r = await moveFaces(props.person.id, props.selected, null);
            return [`Moved ${faces} to a new person.`, r.sourceRemains];
          })
        }
      >
        Not this person
      </button>
      <label>
        <span class="visually-hidden">Move the selected faces to</span>
        <select value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)} disabled={n === 0}>
          <option value="">Move to…</option>
          {choices.map((p) => (
            <option key={p.id} value={p.id}>
              {personName(p)} ({p.mediaCount})
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        disabled={n === 0 || !chosen || busy}
        onClick={() =>
          void run(async () => {
            const r = await moveFaces(props.person.id, props.selected, chosen!.id);
            setTarget('');
            return [`Moved ${faces} to ${personName(chosen!)}.`, r.sourceRemains];
          })
        }
      >
        Move
      </button>
      <button
        type="button"
        disabled={n !== 1 || busy}
        onClick={() =>
          void run(async () => {
            await updatePerson(props.person.id, { coverObjectId: props.selected[0] });
            return ['Cover face chosen.', true];
          })
        }
      >
        Use as cover
      </button>
    </div>
  );
}
