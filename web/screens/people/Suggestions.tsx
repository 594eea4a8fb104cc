/**
 * "These may be the same person": the suggested pairs of the People screen, each merged in one click, or
 * dismissed ("Not the same person") so that the pair is not suggested again.
 */
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { fetchSuggestions, notSamePerson, personName, type Person } from './peopleApi';
import { Crop } from './Crop';

export function Suggestions(props: {
  datasetId: string;
  /** Changes when the list changed (a merge, a rename): the pairs are asked for again. */
  generation: number;
  onMerge: (a: Person, b: Person) => Promise<void>;
}) {
  const loaded = useLoad((signal) => fetchSuggestions(props.datasetId, signal), [props.datasetId, props.generation]);
  const [error, setError] = useState<string | null>(null);
  const pairs = loaded.data?.suggestions ?? [];
  if (pairs.length === 0) return null;
  const dismiss = (a: Person, b: Person) =>
    notSamePerson(a.id, b.id).then(
      () => {
        setError(null);
        loaded.reload();
      },
      (err) => setError(describeError(err)),
    );
  return (
    <section class="people-suggestions" aria-labelledby="suggestions-title">
      <h2 id="suggestions-title">These may be the same person</h2>
      <ul>
        {pairs.map(({ a, b }) => {
          // The named one (else the bigger) stays.
          const [keep, other] = a.name === null && b.name !== null ? [b, a] : [a, b];
          return (
            <li key={`${a.id}-${b.id}`} class="suggestion">
              <Crop src={keep.preview} alt={personName(keep)} />
              <Crop src={other.preview} alt={personName(other)} />
              <span>
                {personName(keep)} and {personName(other)}
              </span>
              <button
                type="button"
                onClick={() => void props.onMerge(keep, other).then(() => loaded.reload())}
                aria-label={`Same person: merge ${personName(other)} into ${personName(keep)}`}
              >
                Same person
              </button>
              <button
                type="button"
                onClick={() => void dismiss(keep, other)}
                aria-label={`Not the same person: ${personName(other)} and ${personName(keep)}`}
              >
                Not the same person
              </button>
            </li>
          );
        })}
      </ul>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
