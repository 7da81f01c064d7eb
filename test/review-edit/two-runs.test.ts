// Two editing runs on one checkout: one's sanctioned publication is no stray write to the other's
// checkout guard (the publications' ledger), while a change to a run's own inputs still stops it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unsanctioned, type GuardSnapshot } from '../../src/review/edit/guard.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { cliOn, editedText, editorRule, gitCorpus, launches, NOTE, noteText, reviewsPass, runOf } from './helpers.js';

const { address } = useDevServerWithCliWorker();

const OTHER = 'kb/notes/a-bare-writing-prompt-does-not-determine-its-intended-contribution.md';

describe('the publications ledger', () => {
  const now: GuardSnapshot = { head: 'h', entries: { 'kb/notes/a.md': ' M:aaa', 'kb/notes/b.md': ' M:bbb', 'kb/notes/c.md': '??:ccc' } };
  const changed = ['kb/notes/a.md', 'kb/notes/b.md', 'kb/notes/c.md'];

  test('a path whose bytes are what another run published is not reported; other bytes, the run itself and its own inputs are', () => {
    const sanctioned = [
      { path: 'kb/notes/a.md', sha256: 'aaa', run: 'full-pass-a' },
      { path: 'kb/notes/b.md', sha256: 'old', run: 'full-pass-a' },
      { path: 'kb/notes/c.md', sha256: 'ccc', run: 'full-pass-self' },
    ];
    expect(unsanctioned(changed, now, sanctioned, { run: 'full-pass-self', inputs: [] })).toEqual(['kb/notes/b.md', 'kb/notes/c.md']);
    expect(unsanctioned(changed, now, sanctioned, { run: 'full-pass-self', inputs: ['kb/notes/a.md'] })).toEqual(changed);
    expect(unsanctioned(changed, now, [], { run: 'full-pass-self', inputs: [] })).toEqual(changed);
  });
});

test('a full pass approved and published while another full pass on the same checkout runs does not stop the other as checkout-changed', async () => {
  const checkout = await gitCorpus();
  const dir = await scratch();
  const release = join(dir, 'release');
  const start = await noteText(checkout);
  const noEdit = { outputs: { 'edited.md': '', 'decision.md': 'The reviews found nothing to resolve.\n\nDecision: no-edit\n' } };
  const { scenario, ledger } = await fakeScenario(dir, [
    // The other note's editor is held open until the first run has published.
    { match: `^(?=[\\s\\S]*^job = edit$)(?=[\\s\\S]*^note = ${OTHER}$)`, attempts: [{ ...noEdit, waitForFile: release }] },
    editorRule({ edited: editedText(start), decision: 'edit' }),
    { attempts: [reviewsPass] },
  ]);
  const fullPass = (note: string) => cliOn(checkout, address(), ['review', 'run', 'full-pass', note, '--profile', 'fake', '--scenario', scenario]);

  const held = fullPass(OTHER);
  await waitFor(
    "the other note's editor to start",
    async () => (await launches(ledger)).some((launch) => launch.job === 'edit' && launch.prompt.includes(`note = ${OTHER}`)),
    180_000,
  );

  const stopped = await fullPass(NOTE);
  expect(stopped.exitCode).toBe(2);
  const key = /key: ([0-9a-f]{16})/.exec(stopped.stdout)?.[1] ?? 'no key shown';
  const approved = await cliOn(checkout, address(), [
    'review',
    'approve',
    runOf('full-pass', NOTE, start, checkout).runId,
    'artifact/publication.json',
    '--key',
    key,
  ]);
  expect(approved.exitCode).toBe(0);
  expect(await noteText(checkout)).toBe(editedText(start));

  await writeFile(release, '');
  const done = await held;
  expect({ exitCode: done.exitCode, stdout: done.stdout }).toEqual({ exitCode: 0, stdout: expect.stringMatching(/completed: no edit/) });
  expect(done.stdout).not.toMatch(/checkout-changed/);
});
