/** Where the open folder is: the collection, then each folder down to it (the last one is the current page). */
import { followLink } from '../../lib/router';
import type { Crumb } from './folderStore';

export function Breadcrumbs(props: { rootName: string; crumbs: Crumb[]; hrefOf: (path: string) => string }) {
  const { rootName, crumbs, hrefOf } = props;
  const all = [{ path: '', name: rootName }, ...crumbs];
  return (
    <nav aria-label="Breadcrumb" class="breadcrumbs">
      <ol>
        {all.map((c, i) =>
          i === all.length - 1 ? (
            <li key={c.path} aria-current="page">
              {c.name}
            </li>
          ) : (
            <li key={c.path}>
              <a href={hrefOf(c.path)} onClick={followLink}>
                {c.name}
              </a>
            </li>
          ),
        )}
      </ol>
    </nav>
  );
}
