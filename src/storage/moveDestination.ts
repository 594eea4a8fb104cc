import { invalid, notFound } from '../platform/errors.js';

/** What a move reads of its destination folder inside its transaction (null: there is no such row). */
export interface DestinationRow {
  type: string;
  status: string;
  path: string;
}

/** The id of the folder a destination path names (its last label), or null for the collection's root. */
export function destinationFolderId(destinationPath: string): string | null {
  const labels = destinationPath.split('.');
  return labels.length > 1 ? labels[labels.length - 1] : null;
}

/**
 * Checks, inside the move's transaction, that `destinationPath` is still a place `row` may go: the same collection,
 * not the row's own subtree, and (below the root) an active folder whose path is still that one. The use case
 * checked this before the transaction; a move that committed meanwhile (two folders moved into each other at once,
 * or the destination moved away) would otherwise leave rows under a path no folder has any more: a cycle, or items
 * no listing reaches.
 */
export function checkMoveDestination(
  row: { path: string },
  destinationPath: string,
  folder: DestinationRow | null | undefined,
): void {
  if (destinationPath.split('.')[0] !== row.path.split('.')[0]) {
    throw invalid('destinationPath must be in the same collection');
  }
  if (destinationPath === row.path || destinationPath.startsWith(`${row.path}.`)) {
    throw invalid('an item cannot be moved into itself or into one of its own subfolders');
  }
  if (destinationFolderId(destinationPath) === null) return;
  if (!folder || folder.status !== 'active' || folder.type !== 'folder' || folder.path !== destinationPath) {
    throw invalid('destinationPath is not an existing folder of this collection');
  }
}

/**
 * The path a new row goes under, checked inside the inserting transaction: the folder the caller resolved before
 * storing the file may have moved since (the row follows it: its path now) or gone to the trash (not found, as the
 * use case says). Without it an upload into a folder moved or deleted during the upload landed under a path no
 * folder has: an item no listing reaches.
 */
export function currentParentPath(parentPath: string, folder: DestinationRow | null | undefined): string {
  if (destinationFolderId(parentPath) === null) return parentPath;
  if (!folder || folder.status !== 'active' || folder.type !== 'folder')
    throw notFound(`no folder at path ${parentPath}`);
  return folder.path;
}
