/**
 * The browser-test harness: the real server (createApp over a temp DATA_DIR, MODEL_PROFILE=test)
 * serving a fresh build of web/, driven by playwright-core in Debian's Chromium (CHROMIUM_PATH,
 * default /usr/bin/chromium). Records every request the page makes so a test can assert that
 * nothing leaves 127.0.0.1, runs axe-core in the page, and saves screenshots to `.screenshots/`
 * (git-ignored). When Chromium is absent, `chromiumPath()` prints a SKIP line and returns null.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWeb } from '../../scripts/build-web.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';
import type { Config } from '../../src/config.js';
import { watchPage, type PageWatch } from './pageWatch.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, '.screenshots');
export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'correct horse battery staple';

/** The Chromium binary to drive, or null (with a SKIP line naming what is missing). */
export function chromiumPath(suite: string): string | null {
  const exe = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(exe)) return exe;
  console.log(
    `SKIP ${suite}: no Chromium at ${exe} (apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH)`,
  );
  return null;
}

let builtWebDir: string | null = null;
/** Builds web/ once per test process into a temp folder. */
async function webDir(): Promise<string> {
  if (!builtWebDir) builtWebDir = (await buildWeb(mkdtempSync(path.join(os.tmpdir(), 'mlib-web-')))).outdir;
  return builtWebDir;
}

export interface BrowserApp {
  server: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested that was not on the server's own origin. */
  foreignRequests: string[];
  /** Errors thrown in the page (uncaught exceptions). */
  pageErrors: string[];
  close(): Promise<void>;
}

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface StartOptions {
  config?: Partial<Config>;
  env?: Record<string, string>;
  viewport?: { width: number; height: number };
  /** A phone's traits (touch, mobile viewport meta) and the system's colour scheme. */
  device?: { hasTouch?: boolean; isMobile?: boolean; colorScheme?: 'light' | 'dark'; deviceScaleFactor?: number };
}

/** Starts the server and a fresh Chromium (its own user-data dir) with one page. */
export async function startBrowserApp(exe: string, options: StartOptions = {}): Promise<BrowserApp> {
  const server = await startTestApp({ webDir: await webDir(), ...options.config }, options.env);
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: exe,
    headless: true,
    args: LAUNCH_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    ...options.device,
  });
  const browser = context.browser() as Browser;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  const origin = new URL(server.baseUrl).origin;
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(origin + '/') && !url.startsWith('blob:') && !url.startsWith('data:'))
      foreignRequests.push(url);
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  return {
    server,
    browser,
    context,
    page,
    foreignRequests,
    pageErrors,
    async close() {
      await context.close().catch(() => undefined);
      await server.close();
    },
  };
}

/** The one-time setup token the server wrote next to the initial API key. */
export function setupToken(server: TestApp): string {
  const link = readFileSync(path.join(server.dataDir, 'setup-link'), 'utf8').trim();
  return new URL(link).searchParams.get('token') ?? '';
}

/**
 * Signs the browser in as the owner without the UI (for tests about other screens): completes the
 * first-run setup through the API and hands its session cookie to the browser.
 */
export async function signInAsOwner(app: BrowserApp): Promise<void> {
  const res = await fetch(app.server.baseUrl + '/api/auth/setup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: setupToken(app.server),
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
      name: 'Owner',
    }),
  });
  if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
  const cookie = /lumen_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('setup set no session cookie');
  await app.context.addCookies([{ name: 'lumen_session', value: cookie, url: app.server.baseUrl }]);
}

/** Runs axe-core in the page; returns the serious and critical violations (empty = pass). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const source = readFileSync(path.join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    // Runs in the page: its window is this function's global.
    const w = globalThis as any;
    const result = await w.axe.run(w.document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
}

/** Saves a full-window screenshot to .screenshots/<name>.png (for people to look at; git-ignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** A BrowserApp whose page is also watched for dialogs and CSP violations (pageWatch.ts). */
export interface WatchedApp extends BrowserApp {
  watch: PageWatch;
}

export interface WatchOptions extends StartOptions {
  /** Sign in as the owner through the API first (default true). */
  signIn?: boolean;
  /** The page asks to confirm on purpose: accept its dialogs, and do not count them against it. */
  acceptDialogs?: boolean;
}

/** startBrowserApp, with the page watched and (unless `signIn: false`) the owner signed in. */
export async function startWatchedApp(exe: string, options: WatchOptions = {}): Promise<WatchedApp> {
  const { signIn = true, acceptDialogs = false, ...start } = options;
  const app = await startBrowserApp(exe, start);
  const watched: WatchedApp = Object.assign(app, { watch: watchPage(app.page, { acceptDialogs }) });
  if (signIn) await signInAsOwner(watched);
  return watched;
}

/** The quality bar for a page: nothing requested off 127.0.0.1, no page error, no CSP violation, no dialog. */
export function assertCleanPage(app: WatchedApp, options: { dialogs?: boolean } = {}): void {
  assert.equal(app.foreignRequests, [], 'nothing requested outside 127.0.0.1');
  assert.equal(app.pageErrors, [], 'no page errors');
  assert.equal(app.watch.cspViolations, [], 'no CSP violations');
  if (options.dialogs ?? true) assert.equal(app.watch.dialogs, [], 'no dialog opened');
}

export type BrowserCtx<Extra extends object = object> = { app: WatchedApp } & Extra;

/**
 * A uvu suite over one watched, signed-in app: `before` starts it (then runs `setup`), `after` asserts the
 * page stayed clean (assertCleanPage) and closes it. `exe` is null when Chromium is absent (tests return early).
 */
export function browserSuite<Extra extends object = object>(
  name: string,
  options: WatchOptions & { setup?: (ctx: BrowserCtx<Extra>) => Promise<void> } = {},
): { exe: string | null; t: Test<BrowserCtx<Extra>> } {
  const { setup, ...start } = options;
  const exe = chromiumPath(name);
  const t = suite<BrowserCtx<Extra>>(name);
  t.before(async (ctx) => {
    if (!exe) return;
    ctx.app = await startWatchedApp(exe, start);
    await setup?.(ctx);
  });
  t.after(async (ctx) => {
    if (!ctx.app) return;
    try {
      assertCleanPage(ctx.app, { dialogs: !start.acceptDialogs });
    } finally {
      await ctx.app.close();
    }
  });
  return { exe, t };
}
