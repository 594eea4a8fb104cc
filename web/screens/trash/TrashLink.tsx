/** The browse screen's way to the collection's trash (/c/:datasetId/trash). */
import { followLink } from '../../lib/router';
import './trash.css';

export function TrashLink({ datasetId }: { datasetId: string }) {
  return (
    <a class="button-link" href={`/c/${encodeURIComponent(datasetId)}/trash`} onClick={followLink}>
      Trash
    </a>
  );
}
