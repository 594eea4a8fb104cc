/** Picks a folder of the collection (the root or any folder below it, indented by depth) to save into. */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../../../lib/api';
import { allFolders, type FolderChoice } from '../../browse/allFolders';

export function FolderPicker(props: { datasetId: string; value: string; onChange: (path: string) => void }) {
  const [folders, setFolders] = useState<FolderChoice[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    allFolders(props.datasetId, '').then(setFolders, (err) => setError(describeError(err)));
  }, [props.datasetId]);
  const known = !props.value || (folders ?? []).some((f) => f.path === props.value);
  return (
    <label class="ai-folder">
      <span>Save into</span>
      <select name="ai-folder" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">Collection root</option>
        {!known && <option value={props.value}>This item's folder</option>}
        {(folders ?? []).map((f) => (
          <option key={f.path} value={f.path}>
            {'\u00a0\u00a0'.repeat(f.depth)}
            {f.name}
          </option>
        ))}
      </select>
      {error && <span class="error"> Could not list the folders: {error}</span>}
    </label>
  );
}
