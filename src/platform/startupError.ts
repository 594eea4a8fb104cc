/**
 * A reason the server cannot start that the operator can fix (a wrong setting, a missing extension, a
 * bucket that does not exist): main.ts prints its message as one line, without a stack trace, and exits.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
