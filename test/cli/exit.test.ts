/**
 * A finished command exits once what it printed has left the process (src/client/shared/exit.ts): a pipe
 * takes 64 KiB at a time, and an exit before a slow reader had the rest cut a long `--json` answer short.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { packageRoot } from '../../src/paths.js';
import { exitOnceWritten } from '../../src/client/shared/exit.js';

/** A stream that hands a chunk on only when the test releases it, as a pipe whose reader is busy. */
function heldStream() {
  const held: Array<() => void> = [];
  const written: string[] = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _encoding, callback) {
      held.push(() => {
        written.push(chunk.toString());
        callback();
      });
    },
  });
  return { stream, written, releaseOne: () => held.shift()?.() };
}

/** Lets every callback already due run (no timer: a few turns of the event loop). */
async function settle() {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

test('the exit waits until every chunk written before it has been taken by the reader', async () => {
  const { stream, written, releaseOne } = heldStream();
  const exits: number[] = [];
  for (const part of ['first answer part\n', 'second answer part\n', 'last answer part\n']) stream.write(part);
  const ending = exitOnceWritten(3, [stream], (code) => exits.push(code));
  for (let released = 0; released < 3; released += 1) {
    await settle();
    expect(exits).toEqual([]);
    releaseOne();
  }
  await settle();
  releaseOne(); // the empty write that marks the end of what was written
  await ending;
  expect(written.join('')).toBe('first answer part\nsecond answer part\nlast answer part\n');
  expect(exits).toEqual([3]);
});

test('a stream already closed does not hold the exit, nor does one with nothing waiting', async () => {
  const closed = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  closed.destroy();
  const idle = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const exits: number[] = [];
  await exitOnceWritten(0, [closed, idle], (code) => exits.push(code));
  expect(exits).toEqual([0]);
});

test('a command whose reader closed the pipe ends quietly, with its own exit code', async () => {
  // The read end closed before the command writes: every write it makes fails with EPIPE.
  const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'commonplace.js'), '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
});
