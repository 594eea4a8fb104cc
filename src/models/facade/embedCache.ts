/**
 * A small cache of recent image embeddings, keyed by model and the image bytes' hash: ingest asks for
 * the same frame's vector twice (the whole-frame object, then moderation's zero-shot), and the second
 * ask should cost a hash, not a 17 G multiply-add tower run. The vector is the same one the model gave
 * (same model, same bytes, deterministic inference), so results are identical.
 */
import { createHash } from 'node:crypto';

export class EmbedCache {
  private readonly entries = new Map<string, Float32Array>();

  /** `limit` 0 disables the cache. */
  constructor(private readonly limit: number) {}

  private key(model: string, bytes: Uint8Array): string {
    return `${model}\u0000${createHash('sha1').update(bytes).digest('base64')}`;
  }

  /**
   * The vectors of `images` under `model`: cached ones from the cache, the rest from `compute` (called
   * once with the missing images, in order), then remembered (least recently used dropped first).
   */
  async embed(
    model: string,
    images: Buffer[],
    compute: (missing: Buffer[]) => Promise<Float32Array[]>,
  ): Promise<Float32Array[]> {
    if (this.limit <= 0) return compute(images);
    const keys = images.map((b) => this.key(model, b));
    const out: (Float32Array | undefined)[] = keys.map((k) => this.entries.get(k));
    const missing = images.filter((_, i) => !out[i]);
    const computed = missing.length ? await compute(missing) : [];
    let j = 0;
    for (let i = 0; i < out.length; i++) {
      const vector = out[i] ?? computed[j++];
      this.entries.delete(keys[i]);
      this.entries.set(keys[i], vector);
      out[i] = vector;
    }
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    // Copies: a caller may transfer or change its vectors.
    return out.map((v) => Float32Array.from(v!));
  }
}
