// A full pass's checkout guard (a worker writing into the checkout) and the run's identity (the same command
// continues the run; an edited note opens a new one), apart from its packet and approval (full-pass-packet.test.ts).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { editorRule, gatesOf, launches, NOTE, noteText, reviewsPass, runOf, fullPassSetup } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();
const setup = (rules: Parameters<typeof fullPassSetup>[1]) => fullPassSetup(address(), rules);

describe('the checkout guard', () => {
  test('a worker that writes into the checkout stops the run with the path; acknowledge continues it', async () => {
    const stray = 'kb/notes/written-by-a-worker.md';
    // The editor decides no edit, and writes a file into the checkout (the scenario names its absolute path).
    const { checkout, ledger, cli, fullPass } = await setup((root) => [
      editorRule({
        outputs: { 'edited.md': '', 'decision.md': 'Nothing to change.\n\nDecision: no-edit\n' },
        writeOutside: { [join(root, stray)]: 'A worker wrote this.\n' },
      }),
      { attempts: [reviewsPass] },
    ]);
    const { runId } = runOf('full-pass', NOTE, await noteText(checkout), checkout);

    const stopped = await fullPass();
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(new RegExp(`full-pass ${runId} stopped: checkout-changed \\(inspect\\)`));
    expect(stopped.stdout).toContain(`paths: ${stray}`);
    expect(stopped.stdout).toContain(` review acknowledge ${runId} --kb `);
    const before = (await launches(ledger)).length;

    const acknowledged = await cli('review', 'acknowledge', runId);
    expect(acknowledged.stderr).toContain(`acknowledged for ${runId}: ${stray}`);
    expect(acknowledged.exitCode).toBe(0);
    expect(acknowledged.stdout).toMatch(/completed: no edit/);
    expect(await launches(ledger)).toHaveLength(before);
    expect(await readFile(join(checkout, stray), 'utf8')).toBe('A worker wrote this.\n');

    const again = await cli('review', 'acknowledge', runId);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/not stopped on a checkout change/);
  });
});

describe('run identity', () => {
  test('repeating run full-pass on the same note continues the same run; after editing the note it opens a new one', async () => {
    const { checkout, ledger, fullPass } = await setup([
      editorRule({ edited: '', decision: 'no-edit' }),
      { match: '^criterion = prose/', attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, reviewsPass] },
      { attempts: [reviewsPass] },
    ]);
    const start = await noteText(checkout);
    const first = runOf('full-pass', NOTE, start, checkout);
    const { lenses } = await gatesOf(checkout);

    const stopped = await fullPass('--concurrency', '1');
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(new RegExp(`full-pass ${first.runId} stopped: usage-limit \\(retry\\)`));
    expect(stopped.stdout).toMatch(new RegExp(`continue with: node \\S+ review run full-pass ${NOTE} --kb `));
    const atStop = (await launches(ledger)).length;

    const differently = await fullPass('--direction', 'shorter');
    expect(differently.exitCode).toBe(1);
    expect(differently.stderr).toMatch(/was started with other options: direction: the run has none, this command asks "shorter"/);

    const resumed = await fullPass();
    expect(resumed.stderr).toContain(`resuming ${first.workflowId} (stopped: usage-limit)`);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`full-pass ${first.runId} completed`));
    // Every bundle was asked once, the one the limit stopped twice; the editor once.
    expect(await launches(ledger)).toHaveLength(lenses.length + 1 + 1 + 1);
    expect(atStop).toBeLessThan(lenses.length + 2);

    const repeated = await fullPass();
    expect(repeated.exitCode).toBe(0);
    expect(repeated.stderr).toContain(`${first.workflowId} already ran over this text`);
    expect(await launches(ledger)).toHaveLength(lenses.length + 3);

    const edited = `${start.trimEnd()}\n\nOne more sentence.\n`;
    await writeFile(join(checkout, NOTE), edited);
    const second = runOf('full-pass', NOTE, edited, checkout);
    expect(second.workflowId).not.toBe(first.workflowId);
    const opened = await fullPass();
    expect(opened.stderr).toContain(`started ${second.workflowId}`);
    expect(opened.exitCode).toBe(0);
    expect(opened.stdout).toMatch(new RegExp(`full-pass ${second.runId} completed`));
  });
});
