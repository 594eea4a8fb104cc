/**
 * The timeline screens (issue #26): /timeline for the whole organization, /c/:datasetId/timeline for one
 * collection. Items by capture date (the upload date where unknown), grouped by month and day under sticky
 * headers, with a scrubber of years and months that jumps anywhere (TimelineView.tsx). `?month=YYYY-MM` opens at
 * that month (the viewer's way back).
 */
import { followLink, location, navigate } from '../../lib/router';
import { canWrite, session } from '../../lib/session';
import { useLoad } from '../../components/useLoad';
import { fetchCollection } from '../browse/browseApi';
import { openUploadPicker } from '../upload/index';
import { fetchBuckets, type TimelineScope } from './timelineApi';
import { TimelineView } from './TimelineView';
import './timeline.css';

export function Timeline(props: { params?: Record<string, string> }) {
  const datasetId = props.params?.datasetId;
  const orgId = session.value?.organizationId ?? '';
  const scope: TimelineScope = { orgId, datasetId };
  const base = datasetId ? `/c/${encodeURIComponent(datasetId)}/timeline` : '/timeline';
  const startMonth = location.value.query.get('month');
  const loaded = useLoad(
    async (signal) => {
      const [timeline, name] = await Promise.all([
        fetchBuckets(scope, signal),
        datasetId ? fetchCollection(datasetId).then((c) => c.name) : Promise.resolve('Timeline'),
      ]);
      return { ...timeline, name };
    },
    [orgId, datasetId],
  );
  const data = loaded.data;
  const title = datasetId ? (data ? `${data.name}: timeline` : 'Timeline') : 'Timeline';
  const hereUrl = (month: string) => (month ? `${base}?month=${month}` : base);
  return (
    <section class="timeline" aria-labelledby="timeline-title">
      <div class="timeline-head">
        <h1 id="timeline-title">{title}</h1>
        {data ? (
          <span class="timeline-total">
            {data.total.toLocaleString()} {data.total === 1 ? 'item' : 'items'}
          </span>
        ) : null}
        <div class="timeline-links">
          {datasetId ? (
            <a class="button-link" href={`/c/${encodeURIComponent(datasetId)}`} onClick={followLink}>
              Folders
            </a>
          ) : null}
          {datasetId ? (
            <a class="button-link" href="/timeline" onClick={followLink}>
              Whole library
            </a>
          ) : null}
        </div>
      </div>
      {loaded.error ? (
        <p class="error" role="alert">
          Could not load the timeline: {loaded.error}{' '}
          <button type="button" onClick={loaded.reload}>
            Try again
          </button>
        </p>
      ) : !data || loaded.loading ? (
        <p class="loading" role="status">
          Loading the timeline…
        </p>
      ) : data.buckets.length === 0 ? (
        <Empty datasetId={datasetId} />
      ) : (
        <TimelineView
          key={base}
          scope={scope}
          buckets={data.buckets}
          startMonth={startMonth}
          hrefOf={(item, month) => `/m/${encodeURIComponent(item.id)}?from=${encodeURIComponent(hereUrl(month))}`}
          onOpen={(e, href, month) => {
            if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
            e.preventDefault();
            // Back from the viewer comes to this month.
            navigate(hereUrl(month), { replace: true });
            navigate(href);
          }}
        />
      )}
    </section>
  );
}

function Empty({ datasetId }: { datasetId?: string }) {
  return (
    <div class="empty-state">
      <h2>No photos yet</h2>
      {datasetId && canWrite() ? (
        <>
          <p>Upload photos and videos: they appear here by the date they were taken.</p>
          <button type="button" onClick={() => openUploadPicker(datasetId)}>
            Upload…
          </button>
        </>
      ) : (
        <p>
          Upload photos and videos to a collection: they appear here by the date they were taken.{' '}
          <a href="/" onClick={followLink}>
            Open the collections
          </a>
        </p>
      )}
    </div>
  );
}
