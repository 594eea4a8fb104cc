/** Placeholder: to be built (issue #15). */
export function Collections(_props: { params?: Record<string, string> }) {
  return <p>Collections</p>;
}
