/**
 * A reason the server must not start that the operator can fix: a store that cannot be reached, a bucket
 * that does not exist. The message is one line naming the fix; the composition root's caller (main.ts)
 * prints it without a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
