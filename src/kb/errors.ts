/**
 * Errors that stop a validation before it can produce findings: the request itself
 * is wrong (an undeclared role, a path outside the checkout) or something it needs
 * is unavailable (a layout that does not load, a type that does not resolve).
 * Defects *in* the files validated are findings, never these.
 */

export type KbErrorCode =
  | 'no-checkout'
  | 'path-not-found'
  | 'path-outside-checkout'
  | 'no-match'
  | 'usage'
  | 'undeclared-role'
  | 'type-unavailable'
  | 'layout-invalid'
  | 'artifact-not-found';

/** An error in the KB or in what a command asked of it; the CLI reports it in one line, exit 1. */
export class KbError extends Error {
  override readonly name = 'KbError';
  readonly code: KbErrorCode;

  constructor(code: KbErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
