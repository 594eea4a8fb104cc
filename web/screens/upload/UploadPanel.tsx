/** Placeholder: to be built (issue #15). */
export function UploadPanel(_props: { params?: Record<string, string> }) {
  return <p>UploadPanel</p>;
}
