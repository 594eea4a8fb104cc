/** A read-only link with a Copy button (the clipboard API needs a secure context: else the text is selected). */
import { useId, useRef, useState } from 'preact/hooks';

export function CopyLink({ label, url }: { label: string; url: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      // No clipboard access (plain http on a LAN address): the text is selected for Ctrl+C.
      setCopied(false);
    }
  };
  return (
    <div class="copy-link">
      <label for={id}>{label}</label>
      <input id={id} ref={input} readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
