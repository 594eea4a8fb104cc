/**
 * Watches a page for what the quality bar forbids: dialogs (an injected `alert(1)` would open one) and
 * Content-Security-Policy violations reported to the console. Used by the account, collections and upload tests.
 */
import type { Page } from 'playwright-core';

export interface PageWatch {
  dialogs: string[];
  cspViolations: string[];
}

export function watchPage(page: Page, watch: PageWatch = { dialogs: [], cspViolations: [] }): PageWatch {
  page.on('dialog', (d) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => undefined);
  });
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) watch.cspViolations.push(msg.text());
  });
  return watch;
}

/** The fixture folder shared by the project's sessions (see its SOURCES.tsv). */
export const FIXTURES = new URL('../../../shared/fixtures/', import.meta.url).pathname;
