import { rendered } from './render-paths.js';

/** An error the operator can act on: printed as its message alone, with the exit code it carries. */
export class UserError extends Error {
  override name = 'UserError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export const debugEnabled = () => process.argv.includes('--debug') || process.env.COMMONPLACE_DEBUG === '1';

/** The one place a command's error becomes a message and an exit code; stack traces only with --debug. */
export function reportError(error: unknown): void {
  const exitCode = error instanceof UserError ? error.exitCode : 1;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`commonplace: ${rendered(message)}\n`);
  if (debugEnabled() && error instanceof Error && error.stack) process.stderr.write(`${rendered(error.stack)}\n`);
  process.exitCode = exitCode;
}

/** A message with its innermost cause's first line when that says more (the SDK's start failure hides the refusal in its cause). */
function withCause(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof UserError || error.cause === undefined) return error;
  const cause = rootMessage(error).split('\n')[0]!.trim();
  if (!cause || error.message.includes(cause)) return error;
  return Object.assign(new Error(`${error.message}: ${cause}`, { cause: error }), { stack: error.stack });
}

/** Wraps a command's action so every failure goes through reportError. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      reportError(withCause(error));
    }
  };
}

/** The innermost cause's message: a workflow failure wraps an activity failure that wraps what actually went wrong. */
export function rootMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current && typeof current.cause === 'object' && current.cause !== null) current = current.cause as typeof current;
  return current?.message ?? String(error);
}
