/**
 * An item's processing state as a small badge: pending, processing, waiting for a model, or failed with its
 * reason; nothing once it is ready. Shared by every screen that shows item tiles (browse, search).
 */

/** The fields of a media object the badge reads (GET /api/media/:id, browse and search all carry them). */
export interface ProcessingFields {
  processingStatus: 'pending' | 'processing' | 'ready' | 'failed';
  processingError: string | null;
  /** Stage → "done" | "off" | "waiting for model X" (presentStages on the server). */
  analysis?: Record<string, string>;
}

export interface BadgeInfo {
  kind: 'pending' | 'processing' | 'waiting' | 'failed';
  label: string;
  /** The longer explanation (a failure's reason, the stages waiting and for which model). */
  detail: string;
}

/** What the badge says for an item, or null when there is nothing to say (ready, all stages done). */
export function badgeOf(m: ProcessingFields): BadgeInfo | null {
  if (m.processingStatus === 'pending') return { kind: 'pending', label: 'Pending', detail: 'Waiting to be analysed' };
  if (m.processingStatus === 'processing')
    return { kind: 'processing', label: 'Processing', detail: 'Being analysed now' };
  if (m.processingStatus === 'failed')
    return { kind: 'failed', label: 'Failed', detail: m.processingError || 'Analysis failed' };
  const waiting = Object.entries(m.analysis ?? {}).filter(([, state]) => state.startsWith('waiting'));
  if (waiting.length === 0) return null;
  return {
    kind: 'waiting',
    label: 'Waiting for a model',
    detail: waiting.map(([stage, state]) => `${stage}: ${state}`).join('; '),
  };
}

/** The badge; its text and tooltip carry the detail, so it reads the same to screen readers. */
export function ProcessingBadge({ item }: { item: ProcessingFields }) {
  const badge = badgeOf(item);
  if (!badge) return null;
  return (
    <span class={`processing-badge processing-${badge.kind}`} title={badge.detail}>
      {badge.label}
      {badge.kind === 'failed' || badge.kind === 'waiting' ? (
        <span class="visually-hidden">: {badge.detail}</span>
      ) : null}
    </span>
  );
}
