/**
 * The folder sidebar: an ARIA tree (role=tree/treeitem) of the collection's folders with their item counts.
 * One item is in the Tab order (the open folder); ↑/↓ move, → expands or goes to the first child, ← collapses
 * or goes to the parent, Home/End jump, Enter or a click opens the folder.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { FolderStore, Level } from './folderStore';
import type { TreeFolder } from './browseApi';

interface Node {
  path: string;
  name: string;
  level: number;
  parent: string | null;
  itemCount: number | null;
  expandable: boolean;
}

/** The visible nodes in order: the root, then each expanded folder's children beneath it. */
function flatten(store: FolderStore, rootName: string): Node[] {
  const out: Node[] = [{ path: '', name: rootName, level: 1, parent: null, itemCount: null, expandable: true }];
  const walk = (path: string, level: number) => {
    if (!store.expanded.value.has(path)) return;
    const children = store.levels.value.get(path);
    if (!Array.isArray(children)) return;
    for (const f of children as TreeFolder[]) {
      out.push({
        path: f.path,
        name: f.name,
        level,
        parent: path,
        itemCount: f.itemCount,
        expandable: f.folderCount > 0,
      });
      walk(f.path, level + 1);
    }
  };
  walk('', 2);
  return out;
}

const levelNote = (level: Level | undefined): string | null =>
  !level || Array.isArray(level) ? null : 'loading' in level ? 'Loading…' : level.error;

export function FolderTree(props: {
  store: FolderStore;
  rootName: string;
  current: string;
  onOpen: (path: string) => void;
}) {
  const { store, rootName, current, onOpen } = props;
  const nodes = flatten(store, rootName);
  const [focused, setFocused] = useState(current);
  const wantFocus = useRef(false);
  useEffect(() => setFocused(current), [current]);
  useLayoutEffect(() => {
    if (!wantFocus.current) return;
    wantFocus.current = false;
    document.getElementById(treeId(focused))?.focus();
  });
  const tabStop = nodes.some((n) => n.path === focused) ? focused : '';

  const move = (path: string) => {
    wantFocus.current = true;
    setFocused(path);
  };
  const onKeyDown = (e: KeyboardEvent, node: Node, at: number) => {
    const expanded = store.expanded.value.has(node.path);
    const key = e.key;
    if (key === 'ArrowDown' && at + 1 < nodes.length) move(nodes[at + 1].path);
    else if (key === 'ArrowUp' && at > 0) move(nodes[at - 1].path);
    else if (key === 'Home') move(nodes[0].path);
    else if (key === 'End') move(nodes[nodes.length - 1].path);
    else if (key === 'ArrowRight' && node.expandable && !expanded) store.toggle(node.path, true);
    else if (key === 'ArrowRight' && expanded && nodes[at + 1]?.parent === node.path) move(nodes[at + 1].path);
    else if (key === 'ArrowLeft' && expanded && node.path !== '') store.toggle(node.path, false);
    else if (key === 'ArrowLeft' && node.parent !== null) move(node.parent);
    else if (key === 'Enter' || key === ' ') onOpen(node.path);
    else return;
    e.preventDefault();
  };

  return (
    <ul role="tree" aria-label="Folders" class="folder-tree">
      {nodes.map((node, at) => {
        const expanded = store.expanded.value.has(node.path);
        const note = expanded ? levelNote(store.levels.value.get(node.path)) : null;
        return (
          <li
            key={node.path}
            id={treeId(node.path)}
            role="treeitem"
            aria-level={node.level}
            aria-expanded={node.expandable ? expanded : undefined}
            aria-selected={node.path === current}
            aria-current={node.path === current ? 'location' : undefined}
            tabIndex={node.path === tabStop ? 0 : -1}
            class={`tree-node${node.path === current ? ' tree-current' : ''}`}
            style={{ paddingLeft: `${(node.level - 1) * 14 + 4}px` }}
            onKeyDown={(e) => onKeyDown(e, node, at)}
            onClick={() => {
              setFocused(node.path);
              onOpen(node.path);
            }}
          >
            <span
              class={`tree-toggle${node.expandable ? '' : ' tree-leaf'}`}
              aria-hidden="true"
              onClick={(e) => {
                e.stopPropagation();
                if (node.expandable && node.path !== '') store.toggle(node.path);
              }}
            >
              {node.expandable ? (expanded ? '▾' : '▸') : ''}
            </span>
            <span class="tree-name">{node.name}</span>
            {node.itemCount !== null ? (
              <span class="tree-count">
                <span class="visually-hidden">, </span>
                {node.itemCount.toLocaleString()}
                <span class="visually-hidden">{node.itemCount === 1 ? ' item' : ' items'}</span>
              </span>
            ) : null}
            {note ? <span class="tree-note muted"> {note}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** A DOM id for a tree node (paths are dot-separated hex labels: safe in an id). */
const treeId = (path: string) => `tree-${path.replace(/\./g, '-') || 'root'}`;
