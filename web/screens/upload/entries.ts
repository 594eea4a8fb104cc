/**
 * Turns what the person gave (files from a picker, a folder from a picker, or a drop of files and folders)
 * into a flat list of files, each with the folder names that lead to it, so the structure can be kept.
 */

/** One file to upload and the folders, outermost first, it sits in relative to where it was dropped. */
export interface PickedFile {
  file: File;
  dirs: string[];
}

/** System clutter that is never a photo or video (.DS_Store, Thumbs.db, dotfiles). */
function isClutter(name: string): boolean {
  return name.startsWith('.') || name === 'Thumbs.db' || name === 'desktop.ini';
}

/** Files from an <input type=file> (with `webkitdirectory`, each carries its relative path). */
export function fromFileList(files: FileList | File[]): PickedFile[] {
  const out: PickedFile[] = [];
  for (const file of Array.from(files)) {
    if (isClutter(file.name)) continue;
    const parts = (file.webkitRelativePath || file.name).split('/').filter(Boolean);
    out.push({ file, dirs: parts.slice(0, -1) });
  }
  return out;
}

function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  // readEntries answers in batches (100 in Chromium) until it answers an empty one.
  return new Promise((resolve, reject) => {
    const all: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) return resolve(all);
        all.push(...batch);
        next();
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, dirs: string[], out: PickedFile[]): Promise<void> {
  if (isClutter(entry.name)) return;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, dirs });
  } else if (entry.isDirectory) {
    const children = await readAll((entry as FileSystemDirectoryEntry).createReader());
    for (const child of children) await walk(child, [...dirs, entry.name], out);
  }
}

/** Files and whole folders from a drop. Entries must be taken synchronously, before the drop event ends. */
export async function fromDrop(transfer: DataTransfer): Promise<PickedFile[]> {
  const entries = Array.from(transfer.items ?? [])
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.length === 0 || entries.some((e) => e === null)) return fromFileList(transfer.files);
  const out: PickedFile[] = [];
  for (const entry of entries) await walk(entry!, [], out);
  return out;
}
