/** An error or confirmation line that screen readers announce when it appears. */
export function Alert({ message, kind = 'error' }: { message: string | null; kind?: 'error' | 'ok' }) {
  if (!message) return null;
  return (
    <p class={kind === 'error' ? 'alert alert-error' : 'alert alert-ok'} role={kind === 'error' ? 'alert' : 'status'}>
      {message}
    </p>
  );
}
