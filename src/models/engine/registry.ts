/**
 * Keeps loaded model parts warm and, with a memory budget, unloads the least
 * recently used idle ones beyond it. A part is one loadable unit: an
 * embedder's vision or text tower, or a whole captioner. Pinned parts (the
 * default embedder's text tower, which every text search needs) are never
 * unloaded. Sizes are the ONNX files' bytes on disk: a fair proxy for the
 * memory onnxruntime holds for fp32/q8 weights.
 */
import type { LoadedModel } from '../types.js';
import type { Device } from './device.js';

export interface Loaded<T> {
  value: T;
  bytes: number;
  device: Device;
  dispose(): Promise<unknown>;
}

interface Slot {
  name: string;
  part: string;
  loaded: Loaded<unknown>;
  lastUsedAt: number;
  busy: number;
}

export class PartRegistry {
  private slots = new Map<string, Slot>();
  private loading = new Map<string, Promise<Slot>>();

  constructor(
    private readonly opts: {
      /** null: no budget, keep everything. */
      budgetBytes: number | null;
      pinned: ReadonlySet<string>;
      onChange(loaded: LoadedModel[]): void;
      log(msg: string, fields?: Record<string, unknown>): void;
    },
  ) {}

  static key(name: string, part: string): string {
    return `${name}:${part}`;
  }

  /** Runs `fn` with the loaded part, loading it first when needed. */
  async use<T, R>(
    name: string,
    part: string,
    load: () => Promise<Loaded<T>>,
    fn: (value: T) => Promise<R>,
  ): Promise<R> {
    const key = PartRegistry.key(name, part);
    let slot = this.slots.get(key);
    if (!slot) {
      let pending = this.loading.get(key);
      if (!pending) {
        pending = (async () => {
          const started = performance.now();
          const loaded = await load();
          const s: Slot = { name, part, loaded, lastUsedAt: Date.now(), busy: 0 };
          this.slots.set(key, s);
          this.opts.log('model loaded', {
            model: name,
            part,
            device: loaded.device,
            mb: Math.round(loaded.bytes / 2 ** 20),
            ms: Math.round(performance.now() - started),
          });
          return s;
        })().finally(() => this.loading.delete(key));
        this.loading.set(key, pending);
      }
      slot = await pending;
      this.opts.onChange(this.list());
    }
    slot.busy++;
    slot.lastUsedAt = Date.now();
    try {
      return await fn(slot.loaded.value as T);
    } finally {
      slot.busy--;
      slot.lastUsedAt = Date.now();
      await this.enforceBudget();
    }
  }

  /** Unloads least-recently-used idle, unpinned parts while over budget. */
  async enforceBudget(): Promise<void> {
    const budget = this.opts.budgetBytes;
    if (budget === null) return;
    let total = this.totalBytes();
    if (total <= budget) return;
    const candidates = [...this.slots.entries()]
      .filter(([key, s]) => s.busy === 0 && !this.opts.pinned.has(key))
      .sort((a, b) => a[1].lastUsedAt - b[1].lastUsedAt);
    let changed = false;
    for (const [key, slot] of candidates) {
      if (total <= budget) break;
      this.slots.delete(key);
      total -= slot.loaded.bytes;
      changed = true;
      this.opts.log('model unloaded (memory budget)', {
        model: slot.name,
        part: slot.part,
        mb: Math.round(slot.loaded.bytes / 2 ** 20),
      });
      await slot.loaded.dispose().catch(() => undefined);
    }
    if (changed) this.opts.onChange(this.list());
  }

  totalBytes(): number {
    let total = 0;
    for (const s of this.slots.values()) total += s.loaded.bytes;
    return total;
  }

  list(): LoadedModel[] {
    return [...this.slots.entries()].map(([key, s]) => ({
      name: s.name,
      part: s.part,
      device: s.loaded.device,
      bytes: s.loaded.bytes,
      lastUsedAt: s.lastUsedAt,
      pinned: this.opts.pinned.has(key),
    }));
  }
}
