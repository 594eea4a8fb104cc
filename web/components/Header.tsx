/** The bar on every signed-in screen: home, the search box, the account and sign-out. */
import { useEffect, useRef } from 'preact/hooks';
import { followLink, location, match, navigate } from '../lib/router';
import { isAdmin, session, signOut } from '../lib/session';
import { actionOf } from '../lib/keymap';
import { HEADER_MENU_ID, HeaderMenuButton, useHeaderMenu } from './HeaderMenu';
import { ExamplePicker, exampleDrop } from '../screens/search/ExamplePicker';

/** Where a search goes: the open collection's scored browse, else the whole organization. */
function searchTarget(q: string): string {
  const path = location.value.path;
  const inCollection = match('/c/:datasetId', path) ?? match('/c/:datasetId/search', path);
  const base = inCollection ? `/c/${encodeURIComponent(inCollection.datasetId)}/search` : '/search';
  return `${base}?q=${encodeURIComponent(q)}`;
}

export function Header() {
  const input = useRef<HTMLInputElement>(null);
  const menu = useHeaderMenu();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (actionOf(e) !== 'search') return;
      e.preventDefault();
      input.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const inCollection = !!(
    match('/c/:datasetId', location.value.path) ?? match('/c/:datasetId/search', location.value.path)
  );
  return (
    <header class={menu.open ? 'app-header menu-open' : 'app-header'}>
      <a href="/" class="brand" onClick={followLink}>
        Lumen
      </a>
      <form
        class="search-form"
        role="search"
        {...exampleDrop()}
        onSubmit={(e) => {
          e.preventDefault();
          const q = input.current?.value.trim() ?? '';
          if (q) navigate(searchTarget(q));
        }}
      >
        <input
          ref={input}
          type="search"
          name="q"
          aria-label={inCollection ? 'Search this collection' : 'Search the whole library'}
          placeholder={inCollection ? 'Search this collection…' : 'Search everything…'}
          defaultValue={location.value.query.get('q') ?? ''}
        />
        <ExamplePicker />
      </form>
      <HeaderMenuButton menu={menu} />
      <nav class="header-actions" id={HEADER_MENU_ID} aria-label="Account">
        <a href="/timeline" onClick={followLink}>
          Timeline
        </a>
        {isAdmin() && (
          <a href="/admin/people" onClick={followLink}>
            Admin
          </a>
        )}
        <a href="/account" onClick={followLink}>
          {session.value?.user.name || session.value?.user.email}
        </a>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
    </header>
  );
}
