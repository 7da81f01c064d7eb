import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ledgerStarts } from '../helpers/fake.js';
import { attemptsOf, launchFile, expectLaunches, result, withRun, member, ROLES, startsByRole, unchangedCorrection, writes, type Role } from './helpers.js';
import { sha256 } from '../../src/fs/digest.js';
import { useDevServer } from '../helpers/servers.js';

// The report verifier's refusals and the corrections they ask for. The clean run, a check's rejection and the
// lenses' concurrency are test/analysis/workflow.test.ts.
const { env } = useDevServer();

/** The run ID the clean members carry. */
const runOf = (clean: Record<Role, string>) => /run: (\S+)/.exec(clean.boundary)?.[1] ?? '';

test('the verifier refuses two authors: both are corrected, every report re-checked, reconciliation re-asked because its inputs changed, and the verifier asked again accepts', async () => {
  await withRun(
    env(),
    (clean) => ({
      'report-verification': [
        writes(
          'report-verification',
          member.verification(runOf(clean), [
            'runtime-report: the loop is said to read once, which src/main.ts does not show',
            'lens-memory: "keeps nothing" needs a source',
          ]),
        ),
        writes('report-verification', clean['report-verification']),
      ],
      'runtime-report': [
        writes('runtime-report', clean['runtime-report']),
        writes('runtime-report', clean['runtime-report'].replace('reads its input once (SRC-2)', 'reads in.txt whole (SRC-2)')),
      ],
      'lens-memory': [
        writes('lens-memory', clean['lens-memory']),
        writes(
          'lens-memory',
          clean['lens-memory'].replace('one pass over one input (SRC-2)', 'one pass that writes out.txt and reads nothing back (SRC-1, SRC-2)'),
        ),
      ],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    }),
    async ({ handle, ledger, prepared }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      expectLaunches(await startsByRole(ledger), { 'runtime-report': 2, 'lens-memory': 2, reconciliation: 2, 'report-verification': 2 });
      const progress = outcome.progress;
      for (const role of ['runtime-report', 'lens-memory']) {
        expect(attemptsOf(progress, role).map((attempt) => [attempt.kind, attempt.outcome, attempt.reason])).toEqual([
          ['write', 'accepted', undefined],
          ['correction', 'accepted', 'refused by report-verification'],
        ]);
        expect(await readFile(launchFile(prepared, role, 2, 'prompt.md'), 'utf8')).toContain('\nrefusal = refusal.md\n');
      }
      expect(await readFile(launchFile(prepared, 'runtime-report', 2, 'refusal.md'), 'utf8')).toContain(
        '- the loop is said to read once, which src/main.ts does not show',
      );
      expect(await readFile(launchFile(prepared, 'lens-memory', 2, 'refusal.md'), 'utf8')).not.toContain('src/main.ts does not show');
      const recheck = progress.checks.filter((check) => check.kind === 're-check');
      expect(recheck.map((check) => [check.role, check.passed]).sort()).toEqual(
        ['lens-control', 'lens-learning', 'lens-memory', 'reconciliation', 'runtime-report'].map((role) => [role, true]),
      );
      const reconciliation = attemptsOf(progress, 'reconciliation');
      expect(reconciliation.map((attempt) => [attempt.kind, attempt.reason])).toEqual([
        ['write', undefined],
        ['fresh', 'its inputs changed: runtime-report, lens-memory'],
      ]);
      const freshPrompt = await readFile(launchFile(prepared, 'reconciliation', 2, 'prompt.md'), 'utf8');
      expect(freshPrompt).toContain('\nchanged = runtime-report, lens-memory\n');
      expect(freshPrompt).not.toMatch(/^(findings|refusal) = /m);
      const verifier = attemptsOf(progress, 'report-verification');
      expect(verifier.map((attempt) => [attempt.kind, attempt.verdict?.refused])).toEqual([
        ['write', ['runtime-report', 'lens-memory']],
        ['fresh', []],
      ]);
      for (const role of ['runtime-report', 'lens-memory', 'reconciliation']) {
        const current = progress.members[role];
        expect(current?.verified).toEqual({ by: 'report-verification', outcome: 'accepted', sha256: current?.sha256 });
      }
    },
  );
});

/** The verifier's launches keyed as the workflow keys its asks: the prompt and the bytes of every member handed. */
async function verifierKeys(ledger: string): Promise<string[]> {
  const starts = (await startsByRole(ledger))['report-verification'];
  return Promise.all(
    starts.map(async (entry) => {
      const handed = await Promise.all(
        ['runtime-report', 'lens-control', 'lens-memory', 'lens-learning', 'reconciliation'].map(async (role) =>
          sha256(await readFile(join(entry.cwd ?? '', 'artifact', `${role}.md`)).catch(() => Buffer.from(''))),
        ),
      );
      return `${entry.promptSha256}:${handed.join(',')}`;
    }),
  );
}

test('a correction with the exact bytes the verifier refused is rejected by its check before the verifier is asked again', async () => {
  await withRun(
    env(),
    (clean) => unchangedCorrection(clean, runOf(clean)),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      const attempts = attemptsOf(outcome.progress, 'runtime-report');
      expect(attempts.map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['correction', 'rejected'],
        ['correction', 'accepted'],
      ]);
      expect(attempts[1]?.findings.map((finding) => finding.rule)).toContain('unchanged-correction');
      const starts = await ledgerStarts(ledger);
      const order = starts.map((entry) => ROLES[entry.rule]);
      expect(order.lastIndexOf('report-verification')).toBeGreaterThan(order.lastIndexOf('runtime-report'));
      const keys = await verifierKeys(ledger);
      expect(keys).toHaveLength(2);
      expect(new Set(keys).size).toBe(2);
    },
  );
});

test('corrections that leave every refused subject as it was refused end the run exhausted, and the verifier is launched once', async () => {
  await withRun(
    env(),
    (clean) => ({
      'report-verification': [
        writes('report-verification', member.verification(runOf(clean), ['runtime-report: the loop is said to read once, which src/main.ts does not show'])),
      ],
      'runtime-report': [writes('runtime-report', clean['runtime-report'])],
    }),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('exhausted');
      expect(outcome.stop?.kind).toBe('budget-exhausted');
      expect(outcome.stop?.reason).toMatch(/^runtime-report has used all 3 of its attempts/);
      expect(attemptsOf(outcome.progress, 'runtime-report').map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['correction', 'rejected'],
        ['correction', 'rejected'],
      ]);
      expect(await verifierKeys(ledger)).toHaveLength(1);
      expect((await startsByRole(ledger))['report-verification']).toHaveLength(1);
    },
  );
});

test('the re-check correction branch: a report that passed fails against a corrected sibling and is re-asked with the findings', async () => {
  const quiet = (lens: 'memory' | 'learning') => ({ text: `Through the ${lens} lens the loop is one pass over one input (SRC-2).` });
  await withRun(
    env(),
    (clean) => {
      const run = runOf(clean);
      return {
        'lens-memory': [writes('lens-memory', member.lens(run, 'memory', quiet('memory')))],
        'lens-learning': [writes('lens-learning', member.lens(run, 'learning', quiet('learning')))],
        'report-verification': [
          writes('report-verification', member.verification(run, ['runtime-report: the component is the main function, not a loop'])),
          writes('report-verification', clean['report-verification']),
        ],
        'runtime-report': [
          writes('runtime-report', clean['runtime-report']),
          writes('runtime-report', member['runtime-report'](run, { record: 'RT-CMP-main' })),
        ],
        'lens-control': [writes('lens-control', clean['lens-control']), writes('lens-control', member.lens(run, 'control', { cites: 'RT-CMP-main' }))],
        reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
      };
    },
    async ({ handle, ledger, prepared }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      expectLaunches(await startsByRole(ledger), { 'runtime-report': 2, 'lens-control': 2, reconciliation: 2, 'report-verification': 2 });
      const recheck = outcome.progress.checks.filter((check) => check.kind === 're-check');
      const rounds = [...new Set(recheck.map((check) => check.round))];
      expect(rounds).toHaveLength(2);
      const failed = recheck.filter((check) => !check.passed);
      expect(failed.map((check) => check.role)).toEqual(['lens-control']);
      expect(failed[0]?.findings[0]?.message).toMatch(/cited record RT-CMP-loop does not exist/);
      expect(recheck.filter((check) => check.round === rounds[1]).every((check) => check.passed)).toBe(true);
      expect(attemptsOf(outcome.progress, 'lens-control').map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['re-ask', 'accepted'],
      ]);
      const findings = await readFile(launchFile(prepared, 'lens-control', 2, 'findings.md'), 'utf8');
      expect(findings).toMatch(/RT-CMP-loop/);
      expect(findings).toContain('- runtime-report: RT-CMP-main');
      expect(attemptsOf(outcome.progress, 'reconciliation')[1]?.reason).toBe('its inputs changed: runtime-report, lens-control');
    },
  );
});
