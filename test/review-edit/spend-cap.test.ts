import { CRITIQUE_INSTRUCTION } from '../../src/review/paths.js';
import { readResultFile } from '../../src/review/result-file.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { cliOn, editorRule, gitCorpus, launches, NOTE, noteText, reviewsPass } from './helpers.js';

const { address } = useDevServerWithCliWorker();

test('a full pass with --max-cost stops with spend-limit before passing it; the same command with a higher cap finishes it, its results carrying their cost', async () => {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  // Every launch reports $0.10; one at a time, a second would take the run to $0.20, past $0.15.
  const { scenario, ledger } = await fakeScenario(await scratch(), [
    editorRule({ outputs: { 'edited.md': '', 'decision.md': 'Nothing to resolve.\n\nDecision: no-edit\n' }, costUsd: 0.1 }),
    { attempts: [{ ...reviewsPass, costUsd: 0.1 }] },
  ]);
  const fullPass = (...extra: string[]) =>
    cliOn(checkout, address(), ['review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario, '--concurrency', '1', ...extra]);

  const stopped = await fullPass('--max-cost', '0.15');
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/stopped: spend-limit \(operator\)/);
  expect(stopped.stdout).toMatch(
    new RegExp(`continue with a higher cap: node \\S+ review run full-pass ${NOTE} --max-cost 0\\.2 --kb \\S+ --address \\S+( --namespace \\S+)?$`, 'm'),
  );
  expect(await launches(ledger)).toHaveLength(1);

  const refused = await fullPass();
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toMatch(/cannot resume .*higher --max-cost/);

  const done = await fullPass('--max-cost', '10');
  expect(done.exitCode).toBe(0);
  const count = (await launches(ledger)).length;
  expect(done.stdout).toMatch(new RegExp(`spent +\\$${(0.1 * count).toFixed(4).replace('.', '\\.')} of \\$10\\.00 cap over ${count} launches`));
  expect(await noteText(checkout)).toBe(start);
  const critique = await readResultFile(checkout, NOTE, CRITIQUE_INSTRUCTION);
  expect(critique).toMatchObject({ ok: true, record: { spend: { costUsd: 0.1 } } });
});
