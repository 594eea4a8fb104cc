/** Placeholder: to be built (issue #15). */
export function Browse(_props: { params?: Record<string, string> }) {
  return <p>Browse</p>;
}
