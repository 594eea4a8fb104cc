/** Placeholder: to be built (issue #15). */
export function Setup(_props: { params?: Record<string, string> }) {
  return <p>Setup</p>;
}
