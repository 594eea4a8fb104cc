/**
 * Measurements taken inside the page for the browser tests and the web bench: when the first useful tile
 * appeared, long tasks (PerformanceObserver 'longtask', > 50 ms on the main thread) and frame times during a
 * scripted scroll, the size of the DOM, and the tallest element. All run through the DevTools protocol
 * (page.evaluate / addInitScript), which the page's CSP does not govern.
 */
import type { Page } from 'playwright-core';

/**
 * Before navigation: records in the page the time (ms since navigation start) when `selector` first matches,
 * and starts collecting long tasks. Call once per page, before page.goto.
 */
export async function instrumentPage(page: Page, selector: string): Promise<void> {
  // A string, not a function: tsx compiles test code with esbuild's keepNames, whose `__name` helper the page lacks.
  await page.addInitScript(`(() => {
    const m = (window.__measure = { firstMatch: null, longTasks: [] });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) m.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    const observer = new MutationObserver(() => {
      if (m.firstMatch === null && document.querySelector(${JSON.stringify(selector)})) {
        m.firstMatch = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { childList: true, subtree: true, attributes: true });
  })()`);
}

/** Milliseconds from navigation start until the selector given to instrumentPage first matched (null: never). */
export async function firstMatchMs(page: Page, timeoutMs = 15_000): Promise<number | null> {
  await page
    .waitForFunction(() => (globalThis as any).__measure?.firstMatch !== null, undefined, { timeout: timeoutMs })
    .catch(() => undefined);
  return page.evaluate(() => (globalThis as any).__measure?.firstMatch ?? null);
}

export interface LongTaskSummary {
  count: number;
  totalMs: number;
  maxMs: number;
}

/** Long tasks recorded since `sinceMs` (page time). */
export async function longTasksSince(page: Page, sinceMs = 0): Promise<LongTaskSummary> {
  const tasks: Array<{ start: number; duration: number }> = await page.evaluate(
    (since: number) => (globalThis as any).__measure.longTasks.filter((t: { start: number }) => t.start >= since),
    sinceMs,
  );
  return {
    count: tasks.length,
    totalMs: Math.round(tasks.reduce((s, t) => s + t.duration, 0)),
    maxMs: Math.round(Math.max(0, ...tasks.map((t) => t.duration))),
  };
}

export interface ScrollRun {
  /** Page time when the scroll began (for longTasksSince). */
  startedAt: number;
  frames: number;
  /** Frames that took longer than 50 ms (visible jank). */
  slowFrames: number;
  maxFrameMs: number;
  durationMs: number;
}

/**
 * Scrolls `scroller` from the top to the bottom in `steps` animation frames (an even, fast fling), the way a
 * user dragging the scrollbar would, and times every frame.
 */
export async function scriptedScroll(page: Page, scroller: string, steps = 120): Promise<ScrollRun> {
  // A string for the same reason as in instrumentPage.
  return page.evaluate(`(async () => {
    const el = document.querySelector(${JSON.stringify(scroller)});
    const n = ${Number(steps)};
    el.scrollTop = 0;
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    let last = await frame();
    const startedAt = last;
    let slowFrames = 0;
    let maxFrameMs = 0;
    for (let i = 1; i <= n; i++) {
      el.scrollTop = ((el.scrollHeight - el.clientHeight) * i) / n;
      const now = await frame();
      if (now - last > 50) slowFrames++;
      maxFrameMs = Math.max(maxFrameMs, now - last);
      last = now;
    }
    return { startedAt, frames: n, slowFrames, maxFrameMs: Math.round(maxFrameMs), durationMs: Math.round(last - startedAt) };
  })()`);
}

/** How many elements match, and the tallest element's height in the whole document (px). */
export async function domFacts(
  page: Page,
  selector: string,
): Promise<{ matches: number; elements: number; tallestPx: number }> {
  return page.evaluate((sel: string) => {
    const doc = (globalThis as any).document;
    const all = [...doc.querySelectorAll('*')] as Array<{
      scrollHeight: number;
      getBoundingClientRect(): { height: number };
    }>;
    return {
      matches: doc.querySelectorAll(sel).length,
      elements: all.length,
      tallestPx: Math.max(...all.map((e) => Math.max(e.scrollHeight, e.getBoundingClientRect().height))),
    };
  }, selector);
}
