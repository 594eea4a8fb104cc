/**
 * The duplicates review (/c/:datasetId/duplicates): the groups the collection's latest scan found, each with
 * its items side by side and the one we suggest keeping (most pixels, then biggest file, then most tags and
 * description, then oldest). A member keeps one and moves the others to the trash in one action, or marks a
 * group as not duplicates; anyone may read. Scans run in the background; the page looks again until done.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { followLink } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { formatDate } from '../../components/format';
import { fetchDuplicates, startScan, type DupGroup, type DupPage } from './duplicatesApi';
import { GroupCard } from './GroupCard';
import './duplicates.css';

const POLL_MS = 1500;

export function Duplicates(props: { params: Record<string, string> }) {
  const datasetId = props.params.datasetId;
  const [page, setPage] = useState<DupPage | null>(null);
  const [groups, setGroups] = useState<DupGroup[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const writer = canWrite();

  useEffect(() => {
    let stop = false;
    fetchDuplicates(datasetId, 0).then(
      (p) => {
        if (stop) return;
        setPage(p);
        setGroups(p.groups);
        setError(null);
      },
      (err) => !stop && setError(describeError(err)),
    );
    return () => {
      stop = true;
    };
  }, [datasetId, tick]);

  // While a scan runs, look again now and then.
  useEffect(() => {
    if (page?.scan.status !== 'running') return;
    const timer = setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [page]);

  const more = async () => {
    try {
      const next = await fetchDuplicates(datasetId, groups.length);
      setGroups([...groups, ...next.groups.filter((g) => !groups.some((x) => x.id === g.id))]);
      setPage(next);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const scan = async () => {
    try {
      await startScan(datasetId);
      setNotice(null);
      setTick((t) => t + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const running = page?.scan.status === 'running';
  return (
    <section class="duplicates" aria-labelledby="dup-title">
      <p>
        <a href={`/c/${encodeURIComponent(datasetId)}`} onClick={followLink}>
          ← Back to the collection
        </a>
      </p>
      <div class="dup-head">
        <h1 id="dup-title">Duplicates</h1>
        {writer && (
          <button type="button" onClick={() => void scan()} disabled={running || !page}>
            {running ? 'Scanning…' : page?.scan.status === 'none' ? 'Scan for duplicates' : 'Scan again'}
          </button>
        )}
      </div>
      <ScanLine page={page} />
      <p class="muted dup-rule">
        Suggested to keep: the most pixels, then the biggest file, then the most tags and description, then the oldest.
      </p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {page === null && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {page && groups.length === 0 && <EmptyState page={page} writer={writer} />}
      {groups.map((g, i) => (
        <GroupCard
          key={g.id}
          datasetId={datasetId}
          group={g}
          index={i}
          canWrite={writer}
          onDone={(message) => {
            setGroups((all) => all.filter((x) => x.id !== g.id));
            setNotice(message);
          }}
        />
      ))}
      {page?.pagination.hasMore && (
        <button type="button" onClick={() => void more()}>
          Show more groups
        </button>
      )}
    </section>
  );
}

function ScanLine(props: { page: DupPage | null }) {
  const scan = props.page?.scan;
  if (!scan) return null;
  if (scan.status === 'running')
    return (
      <p class="muted" role="status">
        A scan is running; this page updates when it is done.
      </p>
    );
  if (scan.status === 'none') return <p class="muted">This collection has not been scanned yet.</p>;
  return (
    <p class="muted">
      Last scan {formatDate(scan.scannedAt!)}: {scan.items} items compared
      {scan.threshold !== null ? `, near duplicates at similarity ≥ ${scan.threshold}` : ', exact copies only'}.{' '}
      {props.page!.pagination.total === 1 ? '1 group' : `${props.page!.pagination.total} groups`} to review.
    </p>
  );
}

function EmptyState(props: { page: DupPage; writer: boolean }) {
  if (props.page.scan.status === 'running') return null;
  if (props.page.scan.status === 'none')
    return (
      <p class="empty-state">
        {props.writer
          ? 'Scan the collection to find copies of the same picture: identical files, resized or recompressed versions, bursts.'
          : 'No scan yet: a member of the organization can start one.'}
      </p>
    );
  return (
    <p class="empty-state" role="status">
      No duplicates to review. Copies of the same picture (identical files, resized or recompressed versions, bursts)
      show up here after a scan.
    </p>
  );
}
