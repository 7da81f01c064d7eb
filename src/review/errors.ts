/** Errors that stop a review command before it reports (a glob matching nothing, an unwritable record); defects in result files are findings. */
import type { Finding } from '../kb/findings.js';

export type ReviewErrorCode =
  /** A `--notes` or `--gates` pattern matched nothing: bad input, exit 1. */
  | 'no-match'
  /** A result record that would be malformed on disk: refused before writing. */
  | 'invalid-record'
  /** A note whose frontmatter cannot be read has no parts to hash. */
  | 'note-unreadable'
  /** The command was asked wrongly (options that do not go together): exit 2. */
  | 'usage';

/** A review request that cannot be carried out, with the code the CLI turns into an exit status. */
export class ReviewError extends Error {
  override readonly name = 'ReviewError';
  readonly code: ReviewErrorCode;
  readonly findings: readonly Finding[];

  constructor(code: ReviewErrorCode, message: string, options: { findings?: readonly Finding[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.findings = options.findings ?? [];
  }
}
