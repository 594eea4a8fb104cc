/**
 * The header's menu on a narrow screen: the account links and sign-out fold behind one button (CSS shows the
 * button and hides the links below 720 px, header.css). It closes on Esc (focus back to the button), on a tap
 * outside, and when the URL changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { location } from '../lib/router';
import './header.css';

export const HEADER_MENU_ID = 'header-menu';

export function useHeaderMenu() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const path = location.value.path;
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    };
    const onDown = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!document.getElementById(HEADER_MENU_ID)?.contains(target) && !button.current?.contains(target))
        setOpen(false);
    };
    window.addEventListener('keydown', onKey, true);
    document.addEventListener('pointerdown', onDown);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onDown);
    };
  }, [open]);
  return { open, button, toggle: () => setOpen((o) => !o) };
}

export function HeaderMenuButton({ menu }: { menu: ReturnType<typeof useHeaderMenu> }) {
  return (
    <button
      ref={menu.button}
      type="button"
      class="header-menu-button"
      aria-label="Menu"
      aria-expanded={menu.open}
      aria-controls={HEADER_MENU_ID}
      onClick={menu.toggle}
    >
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      </svg>
    </button>
  );
}
