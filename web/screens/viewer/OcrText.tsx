/**
 * The words read in the item (its text regions), as plain selectable text and a Copy button (key c).
 */
import { useState } from 'preact/hooks';
import type { MediaItem } from './types';

/** The item's OCR lines, in frame order, each once. */
export function ocrLines(media: MediaItem): string[] {
  const lines = media.frames.flatMap((f) => f.objects.filter((o) => o.type === 'text').map((o) => o.label.trim()));
  return [...new Set(lines.filter(Boolean))];
}

/** Copies text to the clipboard; falls back to a selection copy where the Clipboard API is refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function OcrText(props: { media: MediaItem }) {
  const [status, setStatus] = useState('');
  const lines = ocrLines(props.media);
  if (lines.length === 0) return null;
  const copy = async () =>
    setStatus((await copyText(lines.join('\n'))) ? `Copied ${lines.length} lines.` : 'Could not copy.');
  return (
    <section class="viewer-section" aria-labelledby="ocr-title">
      <h2 id="ocr-title">Text in the picture</h2>
      <div class="ocr-text">
        {lines.map((l, i) => (
          <p key={i}>{l}</p>
        ))}
      </div>
      {/* The `c` key presses this button (Viewer), so both report in the same status line. */}
      <button type="button" class="ocr-copy" onClick={() => void copy()} aria-keyshortcuts="c">
        Copy text
      </button>{' '}
      <span class="muted" role="status">
        {status}
      </span>
    </section>
  );
}
