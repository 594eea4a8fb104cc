/**
 * Corrections that survive reprocessing: fix a region's label (PATCH /api/objects/:id), delete a region
 * (DELETE /api/objects/:id). The server keeps these as the user's rows, which reanalysis never replaces.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import type { Region } from './types';

export function RegionCorrections(props: { region: Region; onChanged: () => void; onDeleted: () => void }) {
  const { region } = props;
  const [label, setLabel] = useState(region.label);
  const [message, setMessage] = useState('');
  useEffect(() => {
    setLabel(region.label);
    setMessage('');
  }, [region.id, region.label]);
  const save = async (e: Event) => {
    e.preventDefault();
    const next = label.trim();
    if (!next || next === region.label) return;
    try {
      await api('PATCH', `/api/objects/${encodeURIComponent(region.id)}`, { body: { label: next } });
      setMessage('Label saved — reprocessing keeps it.');
      props.onChanged();
    } catch (err) {
      setMessage(`Could not save: ${describeError(err)}`);
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete the region “${region.label}”? Reprocessing will not bring it back.`)) return;
    try {
      await api('DELETE', `/api/objects/${encodeURIComponent(region.id)}`);
      props.onDeleted();
    } catch (err) {
      setMessage(`Could not delete: ${describeError(err)}`);
    }
  };
  return (
    <form class="region-corrections" onSubmit={save} aria-label="Correct this region">
      <label>
        Label <input name="label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} autoComplete="off" />
      </label>
      <button type="submit" class="primary" disabled={!label.trim() || label.trim() === region.label}>
        Save label
      </button>
      <button type="button" class="danger" onClick={() => void remove()}>
        Delete region
      </button>
      <p class="muted" role="status">
        {message}
      </p>
    </form>
  );
}
