/** The viewer's side panel (key i): captions, OCR text, tags, analysis state, versions and file facts. */
import { canWrite } from '../../lib/session';
import { Captions } from './Captions';
import { AiTools } from './ai/AiTools';
import { Facts } from './Facts';
import { OcrText } from './OcrText';
import { Reprocess } from './Reprocess';
import { TagEditor } from './TagEditor';
import type { Frame, MediaItem } from './types';
import { Versions } from './Versions';
import { AddToAlbum } from '../albums/AddToAlbum';
import { CaptureFacts } from './CaptureFacts';

export function DetailsPanel(props: {
  media: MediaItem;
  frame: Frame | undefined;
  from: string | null;
  hidden: boolean;
  reload: () => void;
  setMedia: (m: MediaItem) => void;
}) {
  const { media, reload } = props;
  const writable = canWrite();
  return (
    <aside class="viewer-side" aria-label="Details" hidden={props.hidden}>
      <Captions frame={props.frame} canWrite={writable} onChanged={reload} />
      <OcrText media={media} />
      <TagEditor media={media} canWrite={writable} onMedia={props.setMedia} />
      <AddToAlbum datasetId={media.datasetId} mediaIds={[media.id]} />
      <AiTools media={media} frame={props.frame} onChanged={reload} />
      <Reprocess media={media} canWrite={writable} onStarted={reload} onPoll={reload} />
      <Versions media={media} from={props.from} canWrite={writable} onChanged={reload} />
      <CaptureFacts media={media} />
      <Facts media={media} />
    </aside>
  );
}
