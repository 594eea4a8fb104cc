/** Placeholder: to be built (issue #15). */
export function AcceptInvite(_props: { params?: Record<string, string> }) {
  return <p>AcceptInvite</p>;
}
