/** Placeholder: to be built (issue #15). */
export function Viewer(_props: { params?: Record<string, string> }) {
  return <p>Viewer</p>;
}
