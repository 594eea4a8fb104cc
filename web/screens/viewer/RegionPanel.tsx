/** The panel of a chosen region: its corrections (for people who may change things) and the similar regions. */
import { canWrite } from '../../lib/session';
import { RegionCorrections } from './Corrections';
import { SimilarPanel } from './SimilarPanel';
import type { Region } from './types';

export function RegionPanel(props: {
  region: Region;
  datasetId: string;
  /** Where a similar item's Esc returns: this viewer. */
  backTo: string;
  onClose: () => void;
  reload: () => void;
}) {
  return (
    <aside class="viewer-similar" aria-label="Similar regions">
      {canWrite() && (
        <RegionCorrections
          region={props.region}
          onChanged={props.reload}
          onDeleted={() => {
            props.onClose();
            props.reload();
          }}
        />
      )}
      <SimilarPanel region={props.region} datasetId={props.datasetId} backTo={props.backTo} onClose={props.onClose} />
    </aside>
  );
}
