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

/** Codes that mean "the command was asked wrongly" (exit 2) rather than "the input is bad" (exit 1). */
const USAGE_CODES: ReadonlySet<KbErrorCode> = new Set<KbErrorCode>([
  'no-checkout',
  'path-not-found',
  'path-outside-checkout',
  'no-match',
  'usage',
  'undeclared-role',
  'artifact-not-found',
]);

export class KbError extends Error {
  override readonly name = 'KbError';
  readonly code: KbErrorCode;

  constructor(code: KbErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Whether the operator asked for something that cannot be done (exit 2), not a failure of the input. */
  get isUsage(): boolean {
    return USAGE_CODES.has(this.code);
  }
}
