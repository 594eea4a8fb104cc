import { followLink } from '../lib/router';

/** Any signed-in URL no screen claims. */
export function NotFound(_props: { params?: Record<string, string> }) {
  return (
    <section class="empty-state">
      <h1>Nothing here</h1>
      <p>
        This address names no page.{' '}
        <a href="/" onClick={followLink}>
          Go to your collections
        </a>
        .
      </p>
    </section>
  );
}
