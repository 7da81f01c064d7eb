/** Ends a finished command's process even with a connection open, but only once its output is written (a pipe takes 64 KiB at a time). */
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

/** A reader that stopped reading (`| head`): EPIPE is not the command's error; end as if read. */
export function quietOnClosedPipe(stream: Writable = process.stdout, exit: (code: number) => void = (value) => process.exit(value)): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
  });
}
