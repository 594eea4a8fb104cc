/** File facts (size, dimensions, type, dates, path) and the EXIF the server read, as a definition list. */
import type { MediaItem } from './types';

/** "1.4 MB" for 1_400_000 bytes. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

const when = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toLocaleString());

/** EXIF entries worth a row: scalars of the document and of its `tags` group, at most 24. */
function exifRows(exif: Record<string, unknown>): Array<[string, string]> {
  const flat = { ...exif, ...((exif.tags as Record<string, unknown> | undefined) ?? {}) };
  return Object.entries(flat)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 24)
    .map(([k, v]) => [k, String(v)]);
}

export function Facts(props: { media: MediaItem }) {
  const m = props.media;
  const rows: Array<[string, string]> = [
    ['Name', m.name],
    ['Type', m.mimeType ? `${m.type} (${m.mimeType})` : m.type],
    ['Size', bytes(m.sizeBytes)],
    ['Dimensions', m.width && m.height ? `${m.width} × ${m.height}` : 'unknown'],
    ...(m.duration ? ([['Duration', `${m.duration.toFixed(1)} s`]] as Array<[string, string]>) : []),
    ['Added', when(m.createdAt)],
    ['Changed', when(m.updatedAt)],
    ['Path', m.path],
  ];
  const exif = exifRows(m.exif ?? {});
  return (
    <section class="viewer-section" aria-labelledby="facts-title">
      <h2 id="facts-title">File</h2>
      <dl class="facts">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {exif.length > 0 && (
        <details>
          <summary>EXIF ({exif.length})</summary>
          <dl class="facts">
            {exif.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </section>
  );
}
