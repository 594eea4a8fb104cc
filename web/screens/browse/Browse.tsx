/**
 * The browse screen (/c/:datasetId): a collection's folders in a sidebar tree, breadcrumbs, filters, and a
 * virtualised grid of the open folder's items. Everything it shows is named by its URL (browseState.ts).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { location, navigate } from '../../lib/router';
import { canWrite, isAdmin } from '../../lib/session';
import { fetchCollection, fetchPage, fetchTagValues, type MediaItem } from './browseApi';
import { browseParams, CLEARED, hasFilters, listingKey, readState, stateUrl, type BrowseState } from './browseState';
import { mapHref } from '../map/mapApi';
import { CollectionViews } from './CollectionViews';
import { PageCache } from './pageCache';
import { FolderStore } from './folderStore';
import { FolderTree } from './FolderTree';
import { activeFilterCount, closeFolderDrawer, FolderDrawer, phoneClasses, PhoneBar } from './FolderDrawer';
import { Breadcrumbs } from './Breadcrumbs';
import { Filters } from './Filters';
import { FolderActions } from './FolderActions';
import { VirtualGrid } from './VirtualGrid';
import { followCollection } from './liveStatus';
import { openUploadPicker, setUploadFolder } from '../upload/index';
import { SelectionBar } from './selection/SelectionBar';
import { bindListing, clickSelect } from './selection/selection';
import { ShareFolderButton } from '../share/ShareFolderButton';
import '../../components/selection-ai/register';
import '../albums/selectionActions';
import './browse.css';

/** The collection's name, and its tag values for the filter's autocomplete. */
function useCollectionInfo(datasetId: string) {
  const [name, setName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tagValues, setTagValues] = useState<string[]>([]);
  useEffect(() => {
    setName(null);
    setError(null);
    fetchCollection(datasetId)
      .then((c) => setName(c.name))
      .catch((err) => setError(describeError(err)));
    fetchTagValues(datasetId)
      .then(setTagValues)
      .catch(() => setTagValues([]));
  }, [datasetId]);
  return { name, error, tagValues };
}

/** One PageCache per listing (collection + path + filters + sort), fed by live status events. */
function useListing(datasetId: string, state: BrowseState) {
  const key = listingKey(datasetId, state);
  const cache = useMemo(
    () => new PageCache((offset, limit, signal) => fetchPage(datasetId, state, offset, limit, signal)),
    [key],
  );
  useEffect(() => {
    // The first page brings the total; the grid mounts once it is known and asks for the rest.
    cache.want(0, 0);
    return () => cache.dispose();
  }, [cache]);
  useEffect(
    () =>
      followCollection(datasetId, { update: (id, patch) => cache.update(id, patch), refetch: () => cache.refresh() }),
    [cache, datasetId],
  );
  return cache;
}

export function Browse({ params }: { params: Record<string, string> }) {
  const datasetId = params.datasetId;
  const state = readState(location.value.query);
  const info = useCollectionInfo(datasetId);
  const cache = useListing(datasetId, state);
  bindListing(listingKey(datasetId, state));
  const store = useMemo(() => new FolderStore(datasetId), [datasetId]);
  useEffect(() => void store.open(state.path), [store, state.path]);
  // Files dropped on the page, and the upload panel's own buttons, go to the open folder.
  useEffect(() => setUploadFolder(datasetId, state.path || undefined), [datasetId, state.path]);

  const here = stateUrl(datasetId, state);
  const go = (patch: Partial<BrowseState>) => navigate(stateUrl(datasetId, { ...state, ...patch }));
  const folderHref = (path: string) => stateUrl(datasetId, { ...state, path });
  const rootName = info.name ?? 'Collection';
  if (info.error) return <ScreenError message={info.error} />;

  const hrefOf = (item: MediaItem, index: number) =>
    item.type === 'folder'
      ? folderHref(item.path)
      : `/m/${encodeURIComponent(item.id)}?from=${encodeURIComponent(here)}&at=${index}`;
  const onOpen = (e: MouseEvent, href: string, index?: number) => {
    if (index !== undefined && clickSelect(e, index)) return;
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  const crumbs = store.crumbs.value;
  const folderName = state.path ? (crumbs[crumbs.length - 1]?.name ?? '') : rootName;

  return (
    <div class={`browse${phoneClasses()}`}>
      <FolderDrawer label="Folder tree">
        <FolderTree
          store={store}
          rootName={rootName}
          current={state.path}
          onOpen={(path) => {
            closeFolderDrawer();
            go({ path });
          }}
        />
      </FolderDrawer>
      <section class="browse-main" aria-labelledby="browse-title">
        <div class="browse-head">
          <h1 id="browse-title">{rootName}</h1>
          <div class="browse-actions">
            {isAdmin() ? (
              <FolderActions
                datasetId={datasetId}
                path={state.path}
                crumbs={crumbs}
                rootName={rootName}
                onChanged={(path) => {
                  void store.refresh(path);
                  cache.reset();
                  if (path !== state.path) go({ path });
                }}
              />
            ) : null}
            <ShareFolderButton datasetId={datasetId} path={state.path} name={folderName} />
            <UploadButton onClick={() => openUploadPicker(datasetId, state.path || undefined)} />
          </div>
        </div>
        <CollectionViews datasetId={datasetId} mapHref={mapHref(datasetId, browseParams(state))} />
        <PhoneBar folderName={folderName} activeFilters={activeFilterCount(state)} hasActions={isAdmin()} />
        <Breadcrumbs rootName={rootName} crumbs={crumbs} hrefOf={folderHref} />
        <Filters datasetId={datasetId} state={state} tagValues={info.tagValues} onChange={go} />
        <SelectionBar
          datasetId={datasetId}
          state={state}
          cache={cache}
          canWrite={canWrite()}
          rootName={rootName}
          onChanged={() => {
            void store.refresh(state.path);
            cache.refresh();
          }}
        />
        <ListingBody
          cache={cache}
          state={state}
          openError={store.openError.value}
          label={`Items in ${folderName}`}
          hrefOf={hrefOf}
          onOpen={onOpen}
          onClear={() => go(CLEARED)}
          rootHref={folderHref('')}
        />
      </section>
    </div>
  );
}

/** The grid, or the loading, error or empty state in its place; with the item count above it. */
function ListingBody(props: {
  cache: PageCache;
  state: BrowseState;
  openError: string | null;
  label: string;
  hrefOf: (item: MediaItem, index: number) => string;
  onOpen: (e: MouseEvent, href: string, index?: number) => void;
  onClear: () => void;
  rootHref: string;
}) {
  const { cache, state } = props;
  const total = cache.total.value;
  const error = cache.error.value;
  if (props.openError)
    return (
      <div class="empty-state" role="alert">
        <p>This folder could not be opened: {props.openError}</p>
        <a href={props.rootHref} onClick={(e) => props.onOpen(e, props.rootHref)}>
          Back to the top level
        </a>
      </div>
    );
  if (error && total === null)
    return (
      <div class="empty-state" role="alert">
        <p>The items could not be loaded: {error}</p>
        <button type="button" onClick={() => cache.reset()}>
          Try again
        </button>
      </div>
    );
  if (total === null)
    return (
      <p class="loading" role="status">
        Loading items…
      </p>
    );
  if (total === 0) return <EmptyListing filtered={hasFilters(state)} onClear={props.onClear} />;
  return (
    <>
      <p class="browse-count muted" role="status">
        {total.toLocaleString()} {total === 1 ? 'item' : 'items'}
        {error ? <span class="error"> · some items could not be loaded: {error}</span> : null}
      </p>
      <VirtualGrid cache={cache} label={props.label} hrefOf={props.hrefOf} onOpen={props.onOpen} />
    </>
  );
}

function EmptyListing({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  if (filtered)
    return (
      <div class="empty-state" role="status">
        <p>Nothing here matches these filters.</p>
        <button type="button" onClick={onClear}>
          Clear filters
        </button>
      </div>
    );
  return (
    <div class="empty-state" role="status">
      <p>This folder is empty — drop files here or use Upload.</p>
    </div>
  );
}

/** Opens the upload panel's file picker for the open folder (web/screens/upload/index.ts). */
function UploadButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" class="primary" onClick={onClick}>
      Upload
    </button>
  );
}

function ScreenError({ message }: { message: string }) {
  return (
    <div class="empty-state" role="alert">
      <h1>This collection could not be opened</h1>
      <p>{message}</p>
      <a href="/">All collections</a>
    </div>
  );
}
