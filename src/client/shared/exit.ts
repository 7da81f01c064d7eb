/**
 * How a finished command ends its process. It exits even while a client connection or a pending workflow
 * result would keep the event loop alive (a sweep that stopped is still open on the server), but only once
 * what it printed has been written: a pipe takes 64 KiB at a time, and the rest of a long `--json` answer
 * waits in the process for its reader (`commonplace validate --json | jq`, a busy parent). An exit before
 * that cut the answer short.
 */
import type { Writable } from 'node:stream';

/** Waits until everything written to the streams so far has left the process, then exits with the code. */
export async function exitOnceWritten(
  code: number,
  streams: readonly Writable[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (value) => process.exit(value),
): Promise<void> {
  await Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.destroyed || stream.writableEnded) return resolve();
          // A write's callback runs once every write before it has been handed on; an empty one carries nothing.
          stream.write('', () => resolve());
        }),
    ),
  );
  exit(code);
}

/**
 * A reader that stops reading (`commonplace validate --json | head`) closes the pipe: the command's next write
 * fails with EPIPE, which is not the command's error. It ends as if its output had been read, without a stack.
 */
export function quietOnClosedPipe(stream: Writable = process.stdout, exit: (code: number) => void = (value) => process.exit(value)): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
  });
}
