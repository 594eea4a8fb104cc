/** Placeholder: to be built (issue #15). */
export function Account(_props: { params?: Record<string, string> }) {
  return <p>Account</p>;
}
