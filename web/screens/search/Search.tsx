/** Placeholder: to be built (issue #15). */
export function Search(_props: { params?: Record<string, string> }) {
  return <p>Search</p>;
}
