/**
 * The library the trash and undo browser tests start from: a collection "Shelf" with a folder "Albums" holding
 * cat.png and owl.png, and the viewer of an item opened from that folder (so its actions go back to it).
 */
import type { Page } from 'playwright-core';
import type { BrowserCtx } from './browser.js';
import { insertItem } from './seed.js';

export interface Shelf {
  page: Page;
  ds: string;
  albums: { id: string; path: string };
  cat: string;
}

/** Seeds the Shelf into ctx (and ctx.page, the app's page). */
export async function seedShelf(ctx: BrowserCtx<Shelf>): Promise<void> {
  ctx.page = ctx.app.page;
  const server = ctx.app.server;
  ctx.ds = await server.collection('Shelf');
  ctx.albums = (
    await server.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'Albums' } })
  ).body.folder;
  ctx.cat = await insertItem(server, { datasetId: ctx.ds, parentPath: ctx.albums.path, name: 'cat.png' });
  await insertItem(server, { datasetId: ctx.ds, parentPath: ctx.albums.path, name: 'owl.png' });
}

/** The Albums folder's screen, as a path of the app. */
export const albumsUrl = (ctx: BrowserCtx<Shelf>): string => `/c/${ctx.ds}?path=${ctx.albums.path}`;

/** Opens the viewer of `id` (cat.png unless named) as if from the Albums folder. */
export async function viewFromAlbums(ctx: BrowserCtx<Shelf>, id = ctx.cat): Promise<void> {
  await ctx.page.goto(`${ctx.app.server.baseUrl}/m/${id}?from=${encodeURIComponent(albumsUrl(ctx))}`);
}

/** The names of the grid's tiles, sorted. */
export const tileNames = (page: Page): Promise<(string | null)[]> =>
  page.$$eval('.tile .tile-name', (els) => els.map((e) => e.textContent).sort());
