/** Arrow-key movement between tiles: where focus goes from `index` for a key, or null for other keys. */
export function nextIndex(
  key: string,
  index: number,
  ctx: { columns: number; total: number; pageRows: number; ctrl: boolean },
): number | null {
  const { columns, total, pageRows, ctrl } = ctx;
  const last = total - 1;
  const clamp = (i: number) => Math.max(0, Math.min(last, i));
  switch (key) {
    case 'ArrowRight':
      return clamp(index + 1);
    case 'ArrowLeft':
      return clamp(index - 1);
    case 'ArrowDown':
      // Into a shorter last row: its last tile.
      if (index + columns <= last) return index + columns;
      return Math.floor(last / columns) > Math.floor(index / columns) ? last : index;
    case 'ArrowUp':
      return index - columns >= 0 ? index - columns : index;
    case 'Home':
      return ctrl ? 0 : index - (index % columns);
    case 'End':
      return ctrl ? last : clamp(index - (index % columns) + columns - 1);
    case 'PageDown':
      return clamp(index + pageRows * columns);
    case 'PageUp':
      return clamp(index - pageRows * columns);
    default:
      return null;
  }
}
