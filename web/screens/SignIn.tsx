/** Placeholder: to be built (issue #15). */
export function SignIn(_props: { params?: Record<string, string> }) {
  return <p>SignIn</p>;
}
