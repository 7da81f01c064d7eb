import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packetPath, parsePacket } from '../../src/review/edit/packet.js';
import { parsePlan } from '../../src/review/edit/plan.js';
import type { FakeRule } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';
import { cliOn, editFixture, launches, NOTE, noteText, runDir, runOf } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { expectShape } from '../helpers/json-shape.js';
import { sha256 } from './helpers.js';
import { computedOnce } from '../helpers/once.js';

const { env, address } = useDevServerWithCliWorker();

const tighten = (text: string) => text.replace('The convention is deliberately minimal', 'The convention is minimal');

async function setup(rules: (start: string) => FakeRule[]) {
  const { checkout, start, ledger, cli, run, planFile } = await editFixture(address(), rules);
  return { checkout, start, ledger, cli, revise: (...extra: string[]) => run('revise', ...extra), planFile, ...runOf('revise', NOTE, start, checkout) };
}

const keyOf = (stdout: string) => /key: ([0-9a-f]{16})/.exec(stdout)?.[1] ?? 'no key shown';

describe('commonplace review run revise', () => {
  test('with --plan it asks no assessment; the passes run, and the changed note waits for approval of its exact manifest', async () => {
    const run = await setup((start) => [{ match: '^job = revise$', attempts: [{ outputs: { 'edited.md': tighten(start) } }] }]);
    const stopped = await run.revise('--plan', await run.planFile('passes:\n  - tighten\n'));
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(new RegExp(`revise ${run.runId} waits for approval: awaiting-approval`));
    const jobs = (await launches(run.ledger)).map((launch) => launch.job);
    expect(jobs).toEqual(['revise']);
    expect(jobs).not.toContain('assess');
    expect(await readFile(join(runDir(run.checkout, run.runId), 'plan.yaml'), 'utf8')).toBe('passes:\n  - tighten\n');

    const approved = await run.cli('review', 'approve', run.runId, 'artifact/publication.json', '--key', keyOf(stopped.stdout));
    expect(approved.exitCode).toBe(0);
    expect(await noteText(run.checkout)).toBe(tighten(run.start));
    const packet = parsePacket(await readFile(join(run.checkout, packetPath(NOTE, 'revise')), 'utf8'));
    expect(packet).toMatchObject({ ok: true, record: { packet: 'revise', decision: 'edit', closing: 'complete', passes: ['tighten: edited the text'] } });
  });

  test('with --assess the assessment chooses the passes; its plan, checked and re-asked when invalid, is kept and runs without approval', async () => {
    const run = await setup((start) => [
      {
        match: '^job = assess$',
        attempts: [
          { outputs: { 'plan.yaml': 'passes:\n  - shorten\n' } },
          { outputs: { 'plan.yaml': 'passes:\n  - pass: tighten\n    reason: it says one thing twice\n' } },
        ],
      },
      { match: '^job = revise$', attempts: [{ outputs: { 'edited.md': tighten(start) } }] },
    ]);
    const stopped = await run.revise('--assess');
    expect(stopped.exitCode).toBe(2);
    // The only stop is the final manifest: no plan approval.
    expect(stopped.stdout).toMatch(/waits for approval: awaiting-approval .*\n.*the final text differs from the note/);
    const asked = await launches(run.ledger);
    expect(asked.map((launch) => launch.job)).toEqual(['assess', 'assess', 'revise']);
    expect(asked[1]!.prompt).toMatch(/refused by the check(.|\n)*unknown pass "shorten"/);
    const kept = await readFile(join(runDir(run.checkout, run.runId), 'plan.yaml'), 'utf8');
    expect(parsePlan(kept)).toEqual({ ok: true, plan: { passes: [{ pass: 'tighten', reason: 'it says one thing twice' }] } });
    expect(asked[2]!.prompt).toContain('pass = tighten');
  });

  test('a selection proposal edited before approval is the answer the next step uses; the earlier key is then stale', async () => {
    const selections = [
      '- [s1] "carries too much philosophical weight" -> "means too many things" — plain words',
      '- [s2] "deliberately minimal" -> "minimal on purpose" — plain words',
      '',
    ].join('\n');
    const run = await setup(() => [{ match: '^job = select$', attempts: [{ outputs: { 'selections.md': selections } }] }]);
    const dir = runDir(run.checkout, run.runId);
    const first = await run.revise('--plan', await run.planFile('passes: [plain-wording]\n'));
    expect(first.exitCode).toBe(2);
    expect(first.stdout).toContain(` review approve ${run.runId} proposals/01-plain-wording.md --key`);
    expect(first.stdout).toMatch(/^ {2}approve: node \S+ review approve /m);
    const proposalFile = join(dir, 'proposals', '01-plain-wording.md');
    const proposal = await readFile(proposalFile, 'utf8');
    expect(proposal).toContain(selections.split('\n')[0]);
    expect(proposal).toContain(selections.split('\n')[1]);

    // The operator rejects s2 and rewrites s1's replacement.
    await writeFile(proposalFile, proposal.replace(/^- \[s2\].*\n/m, '').replace('"means too many things"', '"means too many different things"'));
    const firstKey = keyOf(first.stdout);
    const second = await run.cli('review', 'approve', run.runId, proposalFile, '--key', firstKey);
    expect(second.exitCode).toBe(2);
    expect(second.stdout).toMatch(/waits for approval(.|\n)*approve: node \S+ review approve \S+ artifact\/publication\.json --key/);
    const final = await readFile(join(dir, 'artifact', 'final.md'), 'utf8');
    expect(final).toContain('The word "agent" means too many different things to define cleanly.');
    expect(final).toContain('deliberately minimal');
    const decision = JSON.parse(await readFile(join(dir, 'proposals', '01-plain-wording.decision.json'), 'utf8')) as {
      rejected: { id: string }[];
      edited: string[];
    };
    expect(decision.rejected.map((selection) => selection.id)).toEqual(['s2']);
    expect(decision.edited).toEqual(['s1']);

    const stale = await run.cli('review', 'approve', run.runId, 'artifact/publication.json', '--key', firstKey);
    expect(stale.exitCode).toBe(1);
    expect(stale.stderr).toMatch(/refused: key \S+ is not the key of the stop .* stale/);
    const published = await run.cli('review', 'approve', run.runId, 'artifact/publication.json', '--key', keyOf(second.stdout));
    expect(published.exitCode).toBe(0);
    expect(await noteText(run.checkout)).toBe(final);
    expect((await launches(run.ledger)).map((launch) => launch.job)).toEqual(['select']);
  });

  describe('a revise run repeated', () => {
    const results = computedOnce(async () => {
      const run = await setup((start) => [{ match: '^job = revise$', attempts: [{ outputs: { 'edited.md': tighten(start) } }] }]);
      const workflowId = run.workflowId;
      const runId = run.runId;
      const planText = 'passes: [tighten]\n';
      const first = await run.revise('--plan', await run.planFile(planText), '--max-cost', '3', '--json');
      const staticDetails = await (await env().client.workflow.getHandle(workflowId).describe()).staticDetails();
      const repeated = await run.revise();
      const other = await run.revise('--assess');
      const launchesAfterRepeats = (await launches(run.ledger)).length;
      await writeFile(join(run.checkout, NOTE), `${run.start.trimEnd()}\n\nAn edit by hand.\n`);
      const unchosen = await run.revise();
      return { workflowId, runId, planText, first, staticDetails, repeated, other, launchesAfterRepeats, unchosen };
    });

    test('with --json the stop is one run-outcome document: awaiting-approval, exit 2, the approve command as next', () => {
      const { workflowId, runId, first } = results();
      expect(first.exitCode).toBe(2);
      const outcome = expectShape(String(first.stdout), 'run-outcome');
      expect(outcome).toMatchObject({ workflowId, runId, status: 'awaiting-approval', exitCode: 2, stops: [{ kind: 'awaiting-approval' }] });
      expect(outcome.next).toMatch(new RegExp(`^commonplace review approve ${runId} artifact/publication\\.json --key [0-9a-f]{16}$`));
    });

    test("the Web UI's static details name the note's text, the profile, the plan's digest and the cost cap", () => {
      const { planText, staticDetails } = results();
      expect(staticDetails).toContain(`**revise of ${NOTE}**`);
      expect(staticDetails).toContain('| profile | fake |');
      expect(staticDetails).toContain(`| work | plan ${sha256(planText).slice(0, 12)} |`);
      expect(staticDetails).toContain('| max cost (USD) | 3 |');
    });

    test('without a mode attaches to the run, which keeps its mode', () => {
      const { workflowId, repeated } = results();
      expect(repeated.stderr).toContain(`attaching to ${workflowId}`);
      expect(repeated.exitCode).toBe(2);
    });

    test('with a different mode is refused (exit 1), naming each option that differs, and asks nothing', () => {
      const { other, launchesAfterRepeats } = results();
      expect(other.exitCode).toBe(1);
      expect(other.stderr).toMatch(
        /started with other options: mode: the run has "plan", this command asks "assess"; planSha256: the run has "[0-9a-f]{64}", this command asks none/,
      );
      expect(launchesAfterRepeats).toBe(1);
    });

    test('after the note changes, without a mode is a usage error (exit 1) asking for a choice of work', () => {
      const { unchosen } = results();
      expect(unchosen.exitCode).toBe(1);
      expect(unchosen.stderr).toMatch(/a new revision of kb\/notes\/agent-is-a-tool-loop\.md needs a choice of work: --plan FILE or --assess/);
    });
  });

  describe('a bad request fails in one line before anything starts', () => {
    let run: Awaited<ReturnType<typeof setup>>;
    beforeAll(async () => {
      run = await setup(() => []);
    });
    afterEach(async () => {
      expect(await launches(run.ledger)).toEqual([]);
    });

    test('--plan and --assess together are a usage error (exit 1)', async () => {
      const both = await run.revise('--assess', '--plan', await run.planFile('passes: [tighten]\n'));
      expect(both.exitCode).toBe(1);
      expect(both.stderr).toMatch(/^commonplace: --plan and --assess choose the work two ways; give one$/);
    });

    test('a plan naming an unknown pass exits 1, naming the pass', async () => {
      const badPlan = await run.revise('--plan', await run.planFile('passes: [shorten]\n'));
      expect(badPlan.exitCode).toBe(1);
      expect(badPlan.stderr).toMatch(/is not a valid plan: .*passes[./]0[./]pass: unknown pass "shorten"/);
    });

    test('a note that does not exist exits 1, naming it', async () => {
      const missing = await run.cli('review', 'run', 'full-pass', 'kb/notes/no-such-note.md');
      expect(missing.exitCode).toBe(1);
      expect(missing.stderr).toMatch(/^commonplace: kb\/notes\/no-such-note\.md: no such note in /);
    });

    test('a checkout outside Git exits 1, saying the checkout guard needs Git', async () => {
      const outside = await cliOn(await corpusCopy(), address(), ['review', 'run', 'full-pass', NOTE]);
      expect(outside.exitCode).toBe(1);
      expect(outside.stderr).toMatch(/the checkout guard needs Git: .* is not inside a Git working tree; run `git init` and commit the KB first/);
    });
  });
});
