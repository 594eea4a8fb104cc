/** Ours (issue #27): the Favourites and Archived filters of the browse bar, and the favourite mark on a tile. */
import type { BrowseState } from './browseState';
import './flags.css';

export function FlagFilters({
  state,
  onChange,
}: {
  state: BrowseState;
  onChange: (patch: Partial<BrowseState>) => void;
}) {
  return (
    <>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={state.favorite}
          onChange={(e) => onChange({ favorite: e.currentTarget.checked })}
        />{' '}
        Favourites only
      </label>
      <label>
        Archived{' '}
        <select
          value={state.archived}
          onChange={(e) => onChange({ archived: e.currentTarget.value as BrowseState['archived'] })}
        >
          <option value="exclude">Hidden</option>
          <option value="include">Shown too</option>
          <option value="only">Only archived</option>
        </select>
      </label>
    </>
  );
}

/** A small heart on a favourite's tile (its name is read with the tile's). */
export function FavoriteMark() {
  return (
    <span class="tile-favorite" title="Favourite">
      <span aria-hidden="true">♥</span>
      <span class="visually-hidden">Favourite</span>
    </span>
  );
}
