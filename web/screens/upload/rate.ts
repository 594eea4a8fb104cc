/** Upload speed over the last few seconds (a moving window: steadier than since-start, quicker than an average). */

const WINDOW_MS = 5000;

export class RateMeter {
  private samples: Array<{ at: number; bytes: number }> = [];

  /** Records the bytes sent so far (a running total) at `now`. */
  sample(bytes: number, now = Date.now()): void {
    this.samples.push({ at: now, bytes });
    while (this.samples.length > 2 && now - this.samples[0].at > WINDOW_MS) this.samples.shift();
  }

  /** Bytes per second, or null until there is enough to tell. */
  rate(): number | null {
    if (this.samples.length < 2) return null;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const ms = last.at - first.at;
    return ms < 250 ? null : ((last.bytes - first.bytes) * 1000) / ms;
  }

  reset(): void {
    this.samples = [];
  }
}
