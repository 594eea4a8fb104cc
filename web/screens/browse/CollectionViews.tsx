/**
 * The collection's other views, one row of links under its name: browsing by folder (this screen), the timeline, the
 * map, places, people, albums, duplicates and the trash. Links, not buttons: each is a page of its own that
 * Back returns from. They were buttons among the folder actions until there were eleven of them in two rows.
 */
import { followLink } from '../../lib/router';
import './collectionViews.css';

interface View {
  label: string;
  href: string;
  current?: boolean;
}

export function CollectionViews({ datasetId, mapHref }: { datasetId: string; mapHref: string }) {
  const base = `/c/${encodeURIComponent(datasetId)}`;
  const views: View[] = [
    { label: 'Browse', href: base, current: true },
    { label: 'Timeline', href: `${base}/timeline` },
    { label: 'Map', href: mapHref },
    { label: 'Places', href: `${base}/places` },
    { label: 'People', href: `${base}/people` },
    { label: 'Albums', href: `${base}/albums` },
    { label: 'Duplicates', href: `${base}/duplicates` },
    { label: 'Trash', href: `${base}/trash` },
  ];
  return (
    <nav class="collection-views" aria-label="Views of this collection">
      <ul>
        {views.map((v) => (
          <li key={v.label}>
            <a href={v.href} onClick={followLink} aria-current={v.current ? 'page' : undefined}>
              {v.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
