/**
 * A full pass asks the critique instruction: a KB without one is refused by the CLI before anything
 * starts (before the server is asked, so no failed run is left behind), in one line that names the file.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CRITIQUE_INSTRUCTION } from '../../src/review/paths.js';
import { runCli } from '../helpers/cli.js';
import { gitCorpus, NOTE } from './helpers.js';

const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

test('a full pass on a KB without kb/instructions/critique-note.md is refused before it starts, naming the file', async () => {
  const checkout = await gitCorpus();
  await rm(join(checkout, ...CRITIQUE_INSTRUCTION.split('/')));
  const result = await runCli(['review', 'run', 'full-pass', NOTE, '--kb', checkout], { env: offline, cwd: checkout });
  expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 1, stdout: '' });
  expect(result.stderr).toMatch(
    /^commonplace: a full pass asks the critique instruction kb\/instructions\/critique-note\.md, and the KB has none usable \(criterion file kb\/instructions\/critique-note\.md does not exist\); add one — [^\n]+$/,
  );
  // Refused before the server: the unreachable address is never the error, and nothing was written.
  expect(result.stderr).not.toMatch(/cannot reach Temporal/);
  expect(await readdir(join(checkout, 'kb', 'reports'), { recursive: true }).catch(() => [])).toEqual([]);
});

test('with the critique instruction in place the same command goes on to ask the server', async () => {
  const checkout = await gitCorpus();
  const result = await runCli(['review', 'run', 'full-pass', NOTE, '--kb', checkout], { env: offline, cwd: checkout });
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toMatch(/cannot reach Temporal at 127\.0\.0\.1:1/);
});
