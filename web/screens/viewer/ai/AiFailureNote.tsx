/**
 * An AI tool's failure, shown in place: a missing model is named, with the way to it (the models page for
 * administrators, "ask an administrator" for everyone else); any other failure gives the server's message.
 */
import { isAdmin } from '../../../lib/session';
import { followLink } from '../../../lib/router';
import type { AiFailure } from './aiApi';

export function AiFailureNote(props: { failure: AiFailure | null; what: string }) {
  const { failure } = props;
  if (!failure) return null;
  return (
    <div class="ai-failure" role="alert">
      {failure.model ? (
        <p>
          Could not {props.what}: the model <strong class="ai-missing-model">{failure.model}</strong> is not installed.{' '}
          {isAdmin() ? (
            <a href="/admin/models" onClick={followLink}>
              Install it on the models page
            </a>
          ) : (
            'Ask an administrator to install it.'
          )}
        </p>
      ) : (
        <p>Could not {props.what}.</p>
      )}
      <p class="muted ai-failure-detail">{failure.message}</p>
    </div>
  );
}
