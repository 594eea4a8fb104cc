/**
 * The application shell: loads the session, then shows the screen the URL names. Signed-out people
 * see the sign-in screen (or the setup / invitation page their link names).
 */
import { useEffect } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { location, match } from './lib/router';
import { loadSession, session } from './lib/session';
import { Header } from './components/Header';
import { DiskBanner } from './components/DiskBanner';
import { ShortcutSheet } from './components/ShortcutSheet';
import { SignIn } from './screens/SignIn';
import { Setup } from './screens/Setup';
import { AcceptInvite } from './screens/AcceptInvite';
import { Account } from './screens/Account';
import { Collections } from './screens/Collections';
import { Browse } from './screens/browse/Browse';
import { Search } from './screens/search/Search';
import { Viewer } from './screens/viewer/Viewer';
import { Trash } from './screens/trash/Trash';
import { UploadPanel } from './screens/upload/UploadPanel';
import { NotFound } from './screens/NotFound';
import { Duplicates } from './screens/duplicates/Duplicates';
import { AdminPeople } from './screens/admin/People';
import { AdminKeys } from './screens/admin/Keys';
import { AdminJobs } from './screens/admin/Jobs';
import { AdminModels } from './screens/admin/Models';
import { AdminStorage } from './screens/admin/Storage';
import { AdminBackups } from './screens/admin/Backups';
import { Albums } from './screens/albums/Albums';
import { AlbumView } from './screens/albums/AlbumView';
import { Visitor } from './screens/share/Visitor';
import { People } from './screens/people/People';
import { Person } from './screens/people/Person';
import { Timeline } from './screens/timeline/Timeline';
import { MapScreen } from './screens/map/MapScreen';
import { Places } from './screens/places/Places';

type Screen = ComponentType<{ params: Record<string, string> }>;

/** Screens open to signed-out visitors. */
const PUBLIC_ROUTES: Array<[string, Screen]> = [
  ['/setup', Setup],
  ['/invite', AcceptInvite],
  ['/s/:token', Visitor],
];

/** Screens for signed-in people, first match wins. */
const ROUTES: Array<[string, Screen]> = [
  ['/', Collections],
  ['/account', Account],
  ['/search', Search],
  ['/timeline', Timeline],
  ['/c/:datasetId', Browse],
  ['/c/:datasetId/search', Search],
  ['/c/:datasetId/duplicates', Duplicates],
  ['/c/:datasetId/albums', Albums],
  ['/c/:datasetId/albums/:albumId', AlbumView],
  ['/c/:datasetId/people', People],
  ['/c/:datasetId/people/:clusterId', Person],
  ['/c/:datasetId/trash', Trash],
  ['/c/:datasetId/timeline', Timeline],
  ['/c/:datasetId/map', MapScreen],
  ['/c/:datasetId/places', Places],
  ['/m/:mediaId', Viewer],
  ['/admin', AdminPeople],
  ['/admin/people', AdminPeople],
  ['/admin/keys', AdminKeys],
  ['/admin/jobs', AdminJobs],
  ['/admin/models', AdminModels],
  ['/admin/storage', AdminStorage],
  ['/admin/backups', AdminBackups],
];

function resolve(
  routes: Array<[string, Screen]>,
  path: string,
): { Screen: Screen; params: Record<string, string> } | null {
  for (const [pattern, Screen] of routes) {
    const params = match(pattern, path);
    if (params) return { Screen, params };
  }
  return null;
}

export function App() {
  useEffect(() => {
    void loadSession().catch(() => (session.value = null));
  }, []);
  const path = location.value.path;
  const open = resolve(PUBLIC_ROUTES, path);
  if (open) return <open.Screen params={open.params} />;
  if (session.value === undefined)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (session.value === null) return <SignIn />;
  const found = resolve(ROUTES, path);
  return (
    <>
      <Header />
      <DiskBanner />
      <main id="main">{found ? <found.Screen params={found.params} /> : <NotFound />}</main>
      <UploadPanel />
      <ShortcutSheet />
    </>
  );
}
