/**
 * Watches a page for what the quality bar forbids: dialogs (an injected `alert(1)` would open one) and
 * Content-Security-Policy violations reported to the console. `startWatchedApp` (browser.ts) watches every
 * test's page; the account test also watches the invitee's page in a second browser.
 */
import type { Page } from 'playwright-core';

export interface PageWatch {
  dialogs: string[];
  cspViolations: string[];
}

/**
 * Records dialogs and CSP violations. A dialog is dismissed, or accepted with `acceptDialogs` (for a page
 * that asks to confirm on purpose, such as the viewer's region delete).
 */
export function watchPage(page: Page, options: { acceptDialogs?: boolean } = {}): PageWatch {
  const watch: PageWatch = { dialogs: [], cspViolations: [] };
  page.on('dialog', (d) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    void (options.acceptDialogs ? d.accept() : d.dismiss()).catch(() => undefined);
  });
  page.on('console', (msg) => {
    if (/Content.Security.Policy|Refused to/i.test(msg.text())) watch.cspViolations.push(msg.text());
  });
  return watch;
}

/** The fixture folder shared by the project's sessions (see its SOURCES.tsv). */
export const FIXTURES = new URL('../../../shared/fixtures/', import.meta.url).pathname;
