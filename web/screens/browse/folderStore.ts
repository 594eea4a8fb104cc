/**
 * The folder tree's data: the levels fetched so far (GET /api/dataset/:id/folders, one per expanded folder),
 * which folders are expanded, and the breadcrumbs of the open folder. The root is the path ''.
 */
import { signal } from '@preact/signals';
import { describeError } from '../../lib/api';
import { fetchFolders, type FolderLevel, type TreeFolder } from './browseApi';

export type Level = TreeFolder[] | { loading: true } | { error: string };
export type Crumb = { id: string; name: string; path: string };

export class FolderStore {
  readonly levels = signal<ReadonlyMap<string, Level>>(new Map());
  readonly expanded = signal<ReadonlySet<string>>(new Set(['']));
  readonly crumbs = signal<Crumb[]>([]);
  /** Why the open folder could not be shown (e.g. it was deleted or moved). */
  readonly openError = signal<string | null>(null);
  private openToken = 0;

  constructor(readonly datasetId: string) {}

  private setLevel(path: string, level: Level): void {
    const next = new Map(this.levels.value);
    next.set(path, level);
    this.levels.value = next;
  }

  /** Fetches one level (again). */
  async load(path: string): Promise<FolderLevel | null> {
    if (!this.levels.value.has(path)) this.setLevel(path, { loading: true });
    try {
      const level = await fetchFolders(this.datasetId, path);
      this.setLevel(path, level.folders);
      return level;
    } catch (err) {
      this.setLevel(path, { error: describeError(err) });
      return null;
    }
  }

  /** Shows `path` as the open folder: its breadcrumbs, and every level down to it expanded and loaded. */
  async open(path: string): Promise<void> {
    const token = ++this.openToken;
    // Crumbs the tree already knows show at once, so they never lag behind the grid while the level loads.
    const known = this.knownCrumbs(path);
    if (known) this.crumbs.value = known;
    const level = await this.load(path);
    if (token !== this.openToken) return;
    if (!level) {
      this.crumbs.value = [];
      const failed = this.levels.value.get(path);
      this.openError.value = failed && 'error' in failed ? failed.error : 'This folder could not be opened';
      return;
    }
    this.openError.value = null;
    this.crumbs.value = level.ancestors;
    const chain = ['', ...level.ancestors.map((a) => a.path)];
    this.expanded.value = new Set([...this.expanded.value, ...chain]);
    await Promise.all(chain.filter((p) => !this.levels.value.has(p)).map((p) => this.load(p)));
  }

  /** The crumbs down to `path` from the levels loaded so far, or null when one of its ancestors is not loaded. */
  private knownCrumbs(path: string): Crumb[] | null {
    const crumbs: Crumb[] = [];
    for (let at = path; at !== '';) {
      const found = this.parentLevelOf(at);
      if (!found) return null;
      crumbs.unshift({ id: found.folder.id, name: found.folder.name, path: at });
      at = found.parent;
    }
    return crumbs;
  }

  private parentLevelOf(path: string): { parent: string; folder: TreeFolder } | null {
    for (const [parent, level] of this.levels.value) {
      const folder = Array.isArray(level) ? level.find((f) => f.path === path) : undefined;
      if (folder) return { parent, folder };
    }
    return null;
  }

  /** Expands or collapses a folder, loading its level the first time. */
  toggle(path: string, open = !this.expanded.value.has(path)): void {
    const next = new Set(this.expanded.value);
    if (open) next.add(path);
    else next.delete(path);
    this.expanded.value = next;
    if (open && !this.levels.value.has(path)) void this.load(path);
  }

  /** After a change (created, renamed, moved): forgets every level and reloads the expanded ones. */
  async refresh(openPath: string): Promise<void> {
    this.levels.value = new Map();
    await Promise.all([...this.expanded.value].map((p) => this.load(p)));
    await this.open(openPath);
  }
}
