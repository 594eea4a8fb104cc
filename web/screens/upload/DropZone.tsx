/**
 * Drag and drop anywhere on a collection's pages: while files are dragged over the window an overlay says
 * where they will go; dropping queues them (whole folders included, structure kept).
 */
import { useEffect, useState } from 'preact/hooks';
import { fromDrop } from './entries';
import { enqueue } from './queue';
import { panelExpanded } from './model';
import type { UploadTarget } from './index';

const carriesFiles = (e: DragEvent): boolean => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');

export function DropZone({ target }: { target: UploadTarget }) {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth++;
      setOver(true);
    };
    const leave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overHandler = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault(); // Lets the drop happen here instead of the browser opening the file.
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const drop = (e: DragEvent) => {
      if (!carriesFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      void fromDrop(e.dataTransfer).then((picked) => {
        if (picked.length === 0) return;
        enqueue(target.datasetId, target.folderPath, picked);
        panelExpanded.value = true;
      });
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overHandler);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overHandler);
      window.removeEventListener('drop', drop);
    };
  }, [target.datasetId, target.folderPath]);
  if (!over) return null;
  return (
    <div class="drop-overlay" aria-hidden="true">
      <p>Drop files or folders to upload them here</p>
    </div>
  );
}
