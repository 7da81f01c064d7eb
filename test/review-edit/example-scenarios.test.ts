/**
 * The editing runs on the shipped example KB with the shipped fake scenarios, through the real CLI,
 * as the demo runs them: a full pass and a revision stop for approval, the printed approve command
 * (run as printed, in the checkout) approves, and the note is published.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../src/paths.js';
import { paste, printed } from '../helpers/paste.js';
import { kbCopy, exampleKb } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { cliOn } from './helpers.js';

const { address } = useDevServerWithCliWorker();

const NOTE = 'kb/notes/why-notes-have-types.md';
const scenarios = join(packageRoot(), 'examples', 'scenarios');

/** A Git checkout of the example KB, as the demo makes it, held by the file's worker. */
const exampleCheckout = () => kbCopy(exampleKb, { prefix: 'commonplace-example-', git: true });

/** Runs a printed command as an operator pastes it (it names the binary, the checkout and the server), from the checkout. */
async function asPrinted(checkout: string, line: string) {
  const result = await paste(line, checkout);
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The approve command a stop printed (`… review approve RUN FILE --key KEY --kb … --address …`). */
function printedApprove(stdout: string): string {
  const line = printed(stdout, 'approve');
  expect(line).toMatch(/ review approve \S+ \S+ --key [0-9a-f]{16} --kb \S+ --address \S+( --namespace \S+)?$/);
  return line;
}

test('a full pass over the example note with examples/scenarios/full-pass.yaml stops for approval; the printed approve command publishes the edited note', async () => {
  const checkout = await exampleCheckout();
  const cli = (...args: string[]) => cliOn(checkout, address(), args);
  const scenario = join(scenarios, 'full-pass.yaml');
  const edited = (parse(await readFile(scenario, 'utf8')) as { launches: { attempts: { outputs?: Record<string, string> }[] }[] }).launches[0]!.attempts[0]!
    .outputs!['edited.md'];

  const stopped = await cli('review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario);
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/waits for approval: awaiting-approval \(operator\)/);
  expect(await readFile(join(checkout, NOTE), 'utf8')).not.toBe(edited);

  const approved = await asPrinted(checkout, printedApprove(stopped.stdout));
  expect(approved.exitCode).toBe(0);
  expect(approved.stdout).toMatch(/completed/);
  expect(await readFile(join(checkout, NOTE), 'utf8')).toBe(edited);
});

test('a revision with --assess and examples/scenarios/revise.yaml stops on its selection list and then on the manifest; approving both as printed publishes the selections', async () => {
  const checkout = await exampleCheckout();
  const start = await readFile(join(checkout, NOTE), 'utf8');

  const selections = await cliOn(checkout, address(), [
    'review',
    'run',
    'revise',
    NOTE,
    '--assess',
    '--profile',
    'fake',
    '--scenario',
    join(scenarios, 'revise.yaml'),
  ]);
  expect(selections.exitCode).toBe(2);
  const first = printedApprove(selections.stdout);
  expect(first).toContain(' proposals/01-plain-wording.md --key ');

  const manifest = await asPrinted(checkout, first);
  expect(manifest.exitCode).toBe(2);
  const second = printedApprove(manifest.stdout);
  expect(second).toContain(' artifact/publication.json --key ');

  const published = await asPrinted(checkout, second);
  expect(published.exitCode).toBe(0);
  expect(await readFile(join(checkout, NOTE), 'utf8')).toBe(
    start
      .replace('The type system serves seven distinct roles.', 'Types do seven jobs.')
      .replace('Types are search aids, not enforcement boundaries.', 'Types help search; they do not fence anything off.'),
  );
});
