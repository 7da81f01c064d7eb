import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePacket } from '../../src/review/edit/packet.js';
import { packetPath } from '../../src/review/edit/packet.js';
import { CRITIQUE_INSTRUCTION } from '../../src/review/paths.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { readResultFile } from '../../src/review/result-file.js';
import { selectPairs } from '../../src/review/status.js';
import { fakeScenario, scratch, waitFor, type FakeRule } from '../helpers/fake.js';
import { editedText, editorRule, gatesOf, gitCorpus, launches, NOTE, noteText, reviewsPass, runDir, runOf, sha256, cliOn } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { expectShape } from '../helpers/json-shape.js';

const { env, address } = useDevServerWithCliWorker();

/** A committed corpus copy, a scenario (its rules may use the checkout and the note's start text), and the CLI on them. */
async function setup(rules: FakeRule[] | ((checkout: string, start: string) => FakeRule[])) {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const { scenario, ledger } = await fakeScenario(await scratch(), typeof rules === 'function' ? rules(checkout, start) : rules);
  const cli = (...args: string[]) => cliOn(checkout, address(), args);
  const fullPass = (...extra: string[]) => cli('review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario, ...extra);
  return { checkout, ledger, scenario, cli, fullPass };
}

describe('commonplace review run full-pass', () => {
  test('a full pass with no edits publishes its packet and results without stopping', async () => {
    const { checkout, ledger, fullPass } = await setup([editorRule({ edited: '', decision: 'no-edit' }), { attempts: [reviewsPass] }]);
    const start = await noteText(checkout);
    const { runId } = runOf('full-pass', NOTE, start, checkout);
    const { gates, lenses } = await gatesOf(checkout);

    const done = await fullPass();
    expect(done.stderr).not.toMatch(/waits for approval|stopped/);
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toMatch(new RegExp(`full-pass ${runId} completed: no edit; the packet and results were published`));
    expect(await noteText(checkout)).toBe(start);

    // One bundle per lens, the critique, the editor: and nothing else.
    const jobs = (await launches(ledger)).map((launch) => launch.job).sort();
    expect(jobs).toEqual([...lenses.map(() => 'gate-review'), 'gate-review', 'edit'].sort());
    const pairs = await selectPairs(checkout, { notes: [NOTE] });
    expect(pairs).toHaveLength(gates.length);
    expect(pairs.every((pair) => pair.status === 'fresh')).toBe(true);
    const critique = await readResultFile(checkout, NOTE, CRITIQUE_INSTRUCTION);
    expect(critique).toMatchObject({ ok: true, record: { outcome: 'report', run: runId, noteSha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });

    const packet = parsePacket(await readFile(join(checkout, packetPath(NOTE, 'full-pass')), 'utf8'));
    expect(packet).toMatchObject({
      ok: true,
      record: { note: NOTE, run: runId, decision: 'no-edit', closing: 'clean', start_sha256: sha256(start), final_sha256: sha256(start) },
    });
    expect(await readFile(join(runDir(checkout, runId), 'packet.md'), 'utf8')).toBe(await readFile(join(checkout, packetPath(NOTE, 'full-pass')), 'utf8'));
  });

  test('a full pass whose editor never writes its outputs ends exhausted: with --json a run-outcome naming the stop and the one step left, and current details one screen long', async () => {
    const { checkout, fullPass } = await setup([
      { match: '^job = edit$', attempts: [{ outputs: { 'notes.txt': 'no edit file\n' } }] },
      { attempts: [reviewsPass] },
    ]);
    const start = await noteText(checkout);
    const { runId, workflowId } = runOf('full-pass', NOTE, start, checkout);

    const ended = await fullPass('--json');
    expect(ended.exitCode).toBe(2);
    const outcome = expectShape(ended.stdout, 'run-outcome');
    expect(outcome).toMatchObject({
      workflowId,
      runId,
      status: 'exhausted',
      exitCode: 2,
      next: `commonplace review run full-pass ${NOTE}`,
      result: { outcome: 'exhausted', stop: { kind: 'budget-exhausted' } },
    });
    const reason = (outcome.result as { stop: { reason: string; evidence?: string } }).stop;
    expect(reason.reason).toMatch(/^the editor: attempt budget \(\d+\) spent; \d+ findings?; first: /);
    expect(reason.evidence).toBe(runDir(checkout, runId));

    const details = (await env().client.workflow.getHandle(workflowId).query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
    expect(details).toContain('**ended: budget-exhausted**');
    expect(details.split('\n').length).toBeLessThanOrEqual(15);
    expect(details.length).toBeLessThanOrEqual(15 * 120);
    expect(await noteText(checkout)).toBe(start);
  });

  describe('a full pass with an edit, repeated while it waits and then approved with its key', () => {
    type Run = Awaited<ReturnType<typeof cliOn>>;
    type Launches = Awaited<ReturnType<typeof launches>>;
    let runId: string;
    let start: string;
    let gates: string[];
    let lenses: string[];
    let stopped: Run;
    let key: string | undefined;
    let currentDetails: string | undefined;
    let staticDetails: string | undefined;
    let statusAtStop: unknown;
    let noteAtStop: string;
    let freshAtStop: unknown[];
    let packetAtStop: string;
    let finalText: string;
    let finalDiff: string;
    let manifest: { files: Record<string, string> };
    let atStop: Launches;
    let again: Run;
    let againJson: Run;
    let noteAfterAgain: string;
    let approved: Run;
    let noteAfterApproval: string;
    let journal: { event: string }[];
    let pairs: Awaited<ReturnType<typeof selectPairs>>;
    let critiqueOk: boolean;
    let withoutSummary: string[];
    let packet: ReturnType<typeof parsePacket>;
    let atEnd: Launches;
    beforeAll(async () => {
      const { checkout, ledger, cli, fullPass } = await setup((_checkout, text) => [
        editorRule({ edited: editedText(text), decision: 'edit' }),
        { match: '^criterion = prose/', attempts: [{ ...reviewsPass, review: 'warn' }, reviewsPass] },
        { attempts: [reviewsPass] },
      ]);
      start = await noteText(checkout);
      runId = runOf('full-pass', NOTE, start, checkout).runId;
      const dir = runDir(checkout, runId);
      ({ gates, lenses } = await gatesOf(checkout));

      stopped = await fullPass();
      key = /key: ([0-9a-f]{16})/.exec(String(stopped.stdout))?.[1];
      const handle = env().client.workflow.getHandle(runOf('full-pass', NOTE, start, checkout).workflowId);
      currentDetails = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
      const described = await handle.describe();
      statusAtStop = described.typedSearchAttributes.get(CommonplaceStatus);
      staticDetails = await described.staticDetails();
      noteAtStop = await noteText(checkout);
      freshAtStop = (await selectPairs(checkout, { notes: [NOTE] })).filter((pair) => pair.status === 'fresh');
      packetAtStop = await readFile(join(checkout, packetPath(NOTE, 'full-pass')), 'utf8').catch(() => 'none');
      finalText = await readFile(join(dir, 'artifact', 'final.md'), 'utf8');
      finalDiff = await readFile(join(dir, 'artifact', 'final.diff'), 'utf8');
      manifest = JSON.parse(await readFile(join(dir, 'artifact', 'publication.json'), 'utf8')) as { files: Record<string, string> };
      atStop = await launches(ledger);

      again = await fullPass();
      againJson = await fullPass('--json');
      noteAfterAgain = await noteText(checkout);

      approved = await cli('review', 'approve', runId, join(dir, 'artifact', 'publication.json'), '--key', key ?? 'no-key', '--json');
      noteAfterApproval = await noteText(checkout);
      journal = (await readFile(join(dir, 'publication.journal.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string });
      pairs = await selectPairs(checkout, { notes: [NOTE] });
      critiqueOk = (await readResultFile(checkout, NOTE, CRITIQUE_INSTRUCTION)).ok;
      packet = parsePacket(await readFile(join(checkout, packetPath(NOTE, 'full-pass')), 'utf8'));
      atEnd = await launches(ledger);
      const history = await env()
        .client.workflow.getHandle(runOf('full-pass', NOTE, start, checkout).workflowId)
        .fetchHistory();
      withoutSummary = (history.events ?? []).flatMap((event) =>
        event.activityTaskScheduledEventAttributes && !event.userMetadata?.summary
          ? [event.activityTaskScheduledEventAttributes.activityType?.name ?? '?']
          : [],
      );
    });

    test('every activity the run scheduled carries a summary for the Web UI', () => {
      expect(withoutSummary).toEqual([]);
    });

    test('it stops awaiting approval with exit 2, printing the key and the approve command', () => {
      expect(stopped.exitCode).toBe(2);
      expect(stopped.stdout).toMatch(new RegExp(`full-pass ${runId} waits for approval: awaiting-approval \\(operator\\)`));
      expect(key).toBeDefined();
      expect(stopped.stdout).toMatch(new RegExp(`approve: node \\S+ review approve ${runId} artifact/publication\\.json --key ${key} --kb `));
    });

    test("the Web UI shows the stop's key in the current details and awaiting-approval as the status search attribute", () => {
      expect(currentDetails).toContain(`key: ${key}`);
      expect(statusAtStop).toBe('awaiting-approval');
    });

    test('while it waits nothing reaches the checkout: not the note, its results or its packet', () => {
      expect(noteAtStop).toBe(start);
      expect(freshAtStop).toEqual([]);
      expect(packetAtStop).toBe('none');
    });

    test("while it waits the run's artifact holds the final text, its diff and a manifest with the final text's hash", () => {
      expect(finalText).toBe(editedText(start));
      expect(finalDiff).toMatch(/^\+This copy is number \d+ .* An edit the full pass proposed\.$/m);
      expect(manifest.files[NOTE]).toBe(sha256(editedText(start)));
    });

    test('the editor is asked once, and every bundle and the critique once more after the edit changed the body', () => {
      expect(atStop.filter((launch) => launch.job === 'edit')).toHaveLength(1);
      expect(atStop.filter((launch) => launch.job === 'gate-review')).toHaveLength(2 * (lenses.length + 1));
    });

    test('repeating the command attaches to the stop and approves nothing', () => {
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toMatch(/attaching to full-pass\//);
      expect(again.stdout).toContain(`key: ${key}`);
      expect(noteAfterAgain).toBe(start);
    });

    test('with --json the repeat prints a run-outcome document: awaiting-approval, exit 2, the approve command as next', () => {
      expect(againJson.exitCode).toBe(2);
      const outcome = expectShape(String(againJson.stdout), 'run-outcome');
      expect(outcome).toMatchObject({
        runId,
        status: 'awaiting-approval',
        exitCode: 2,
        next: `commonplace review approve ${runId} artifact/publication.json --key ${key}`,
        stops: [{ kind: 'awaiting-approval' }],
      });
    });

    test("the Web UI shows the run's parameters as static details: the note, its text digest, the profile and the checkout", () => {
      expect(staticDetails).toContain(`**full-pass of ${NOTE}**`);
      expect(staticDetails).toContain(`| note text (sha256) | ${sha256(start).slice(0, 12)} |`);
      expect(staticDetails).toContain('| profile | fake |');
      expect(staticDetails).toMatch(/\| checkout \| checkout [0-9a-f]{8} \|/);
    });

    test('approving with the right key (--json) completes the run, printing a completed run-outcome, and writes the note once', () => {
      expect(approved.exitCode).toBe(0);
      expect(expectShape(String(approved.stdout), 'run-outcome')).toMatchObject({
        runId,
        status: 'completed',
        exitCode: 0,
        result: { kind: 'full-pass', runId, outcome: 'published', decision: 'edit' },
      });
      expect(noteAfterApproval).toBe(editedText(start));
      expect(journal.map((entry) => entry.event)).toEqual(['begin', 'note-writing', 'done']);
    });

    test('approval publishes a fresh result of every gate and of the critique for the final text', () => {
      expect(pairs).toHaveLength(gates.length);
      expect(pairs.every((pair) => pair.status === 'fresh')).toBe(true);
      expect(critiqueOk).toBe(true);
    });

    test('approval publishes the packet, recording the edit, both hashes and the prose gates it resolved', () => {
      expect(packet).toMatchObject({
        ok: true,
        record: { decision: 'edit', closing: 'clean', start_sha256: sha256(start), final_sha256: sha256(editedText(start)), remaining: [], introduced: [] },
      });
      if (packet.ok) expect(packet.record.resolved.sort()).toEqual(gates.filter((gate) => gate.startsWith('prose/')).sort());
    });

    test('nothing is asked again after the stop', () => {
      expect(atEnd).toHaveLength(atStop.length);
    });
  });
});

describe('commonplace review packet', () => {
  describe("a packet's recorded hashes compared with the note, before a pass, after its publication and after a later edit", () => {
    type Run = Awaited<ReturnType<typeof cliOn>>;
    let start: string;
    let changed: string;
    let before: Run;
    let passed: Run;
    let byNote: Run;
    let byNoteJson: Run;
    let byRun: Run;
    let stale: Run;
    let staleJson: Run;
    beforeAll(async () => {
      const { checkout, cli, fullPass } = await setup([editorRule({ edited: '', decision: 'no-edit' }), { attempts: [reviewsPass] }]);
      start = await noteText(checkout);
      const { runId } = runOf('full-pass', NOTE, start, checkout);
      before = await cli('review', 'packet', NOTE);
      passed = await fullPass();
      byNote = await cli('review', 'packet', NOTE);
      byNoteJson = await cli('review', 'packet', NOTE, '--json');
      byRun = await cli('review', 'packet', runId);
      changed = `${start.trimEnd()}\n\nLater.\n`;
      await writeFile(join(checkout, NOTE), changed);
      stale = await cli('review', 'packet', NOTE);
      staleJson = await cli('review', 'packet', NOTE, '--json');
    });

    test('before any pass, the note has no published packet', () => {
      expect(before.stderr).toMatch(/has no published packet/);
    });

    test('after the pass is published, the packet named by the note describes the note as the pass left it', () => {
      expect(passed.exitCode).toBe(0);
      expect(byNote.exitCode).toBe(0);
      expect(byNote.stdout).toContain(`packet kb/reports/state/review/packets/notes/agent-is-a-tool-loop.md/full-pass.md`);
      expect(byNote.stdout).toMatch(new RegExp(`note now +${sha256(start).slice(0, 12)}: the packet describes the note: unchanged, as the pass left it`));
    });

    test("the packet named by the run ID is the run's published packet", () => {
      expect(byRun.exitCode).toBe(0);
      expect(byRun.stdout).toMatch(/packet kb\/reports\/state\/review\/runs\/\S+\/packet\.md \(published\)/);
    });

    test('once the note changes, the packet exits 2 saying it no longer describes the note', () => {
      expect(stale.exitCode).toBe(2);
      expect(stale.stdout).toContain(`no longer describes the note: it changed since (it hashes to ${sha256(changed).slice(0, 12)} now)`);
    });

    test('with --json each packet is one review-packet document: its hashes, the note now and the verdict', () => {
      expect(byNoteJson.exitCode).toBe(0);
      expect(expectShape(String(byNoteJson.stdout), 'review-packet')).toMatchObject({
        subject: NOTE,
        describes: true,
        exitCode: 0,
        packets: [
          {
            file: 'kb/reports/state/review/packets/notes/agent-is-a-tool-loop.md/full-pass.md',
            source: 'published',
            kind: 'full-pass',
            note: NOTE,
            decision: 'no-edit',
            startSha256: sha256(start),
            finalSha256: sha256(start),
            noteSha256: sha256(start),
            verdict: 'describes',
          },
        ],
      });
      expect(staleJson.exitCode).toBe(2);
      expect(expectShape(String(staleJson.stdout), 'review-packet')).toMatchObject({
        describes: false,
        exitCode: 2,
        packets: [{ noteSha256: sha256(changed), verdict: 'changed' }],
      });
    });
  });
});

describe('approval of a full pass waiting on its manifest', () => {
  let waiting: Awaited<ReturnType<typeof setup>> & { runId: string; dir: string; key: string; start: string };
  beforeAll(async () => {
    const base = await setup((_checkout, text) => [editorRule({ edited: editedText(text), decision: 'edit' }), { attempts: [reviewsPass] }]);
    const start = await noteText(base.checkout);
    const { runId } = runOf('full-pass', NOTE, start, base.checkout);
    const stopped = await base.fullPass();
    expect(stopped.exitCode).toBe(2);
    waiting = { ...base, runId, dir: runDir(base.checkout, runId), key: /key: ([0-9a-f]{16})/.exec(stopped.stdout)![1]!, start };
  });

  const manifestFile = () => join(waiting.dir, 'artifact', 'publication.json');
  const staleKey = async () => {
    // The key this proposal would have at another stop: bound to the stop, it approves nothing here.
    const proposal = JSON.parse(await readFile(join(waiting.dir, 'artifact', 'proposal.json'), 'utf8')) as {
      stop: number;
      sha256: string;
      inputs: { path: string; sha256: string }[];
    };
    const { approvalKey } = await import('../../src/review/edit/approval-key.js');
    return approvalKey(
      { runId: waiting.runId, stop: proposal.stop + 1, file: 'artifact/publication.json', proposalSha256: proposal.sha256, inputs: proposal.inputs },
      sha256,
    );
  };

  test.each([
    [
      'a stale key',
      async () => ({ file: manifestFile(), key: await staleKey() }),
      /refused: key [0-9a-f]{16} is not the key of the stop .* it is stale or mistyped/,
    ],
    [
      'an edited publication.json',
      async () => {
        const text = await readFile(manifestFile(), 'utf8');
        await writeFile(
          manifestFile(),
          text.replace('"files": {', '"files": {\n    "kb/notes/extra.md": "0000000000000000000000000000000000000000000000000000000000000000",'),
        );
        return { file: manifestFile(), key: waiting.key, restore: () => writeFile(manifestFile(), text) };
      },
      /refused: artifact\/publication\.json is not the generated manifest: final publication is approved only with the exact generated file/,
    ],
    [
      'a proposal the run is not waiting on',
      async () => ({ file: join(waiting.dir, 'artifact', 'final.md'), key: waiting.key }),
      /refused: artifact\/final\.md is not the proposal .* waits on \(it waits on artifact\/publication\.json\)/,
    ],
    [
      'a changed proposal input (final.md edited)',
      async () => {
        const finalFile = join(waiting.dir, 'artifact', 'final.md');
        const text = await readFile(finalFile, 'utf8');
        await writeFile(finalFile, `${text}A line the operator slipped in.\n`);
        return { file: manifestFile(), key: waiting.key, restore: () => writeFile(finalFile, text) };
      },
      /refused: the proposal's inputs changed since it was proposed \(artifact\/final\.md\)/,
    ],
  ])('approval with %s is refused and changes nothing', async (_name, arrange, message) => {
    const { file, key, restore } = (await arrange()) as { file: string; key: string; restore?: () => Promise<void> };
    const before = await launches(waiting.ledger);
    const refused = await waiting.cli('review', 'approve', waiting.runId, file, '--key', key);
    await restore?.();
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(message);
    expect(refused.stderr).toMatch(/nothing was approved/);
    expect(await noteText(waiting.checkout)).toBe(waiting.start);
    expect((await selectPairs(waiting.checkout, { notes: [NOTE] })).filter((pair) => pair.status === 'fresh')).toEqual([]);
    const still = await waiting.fullPass();
    expect(still.exitCode).toBe(2);
    expect(still.stdout).toContain(`key: ${waiting.key}`);
    expect(await launches(waiting.ledger)).toHaveLength(before.length);
  });

  test('its packet does not describe the note yet, and nothing is published for the note', async () => {
    const byRun = await waiting.cli('review', 'packet', waiting.runId);
    expect(byRun.exitCode).toBe(2);
    expect(byRun.stdout).toMatch(/\(not published\)/);
    expect(byRun.stdout).toMatch(/does not describe the note yet: it still holds the start text \(the edit is not published\)/);
    const byNote = await waiting.cli('review', 'packet', NOTE);
    expect(byNote.exitCode).toBe(1);
    expect(byNote.stderr).toMatch(/has no published packet/);
  });

  test('the note edited by hand while the run waits: approval gives a conflict, nothing is written, and the note keeps the hand edit', async () => {
    const hand = `${waiting.start.trimEnd()}\n\nA paragraph the operator wrote by hand.\n`;
    await writeFile(join(waiting.checkout, NOTE), hand);
    const approved = await waiting.cli('review', 'approve', waiting.runId, 'artifact/publication.json', '--key', waiting.key);
    expect(approved.exitCode).toBe(2);
    expect(approved.stdout).toMatch(new RegExp(`full-pass ${waiting.runId} stopped: conflict \\(operator\\)`));
    expect(approved.stdout).toMatch(/kb\/notes\/agent-is-a-tool-loop\.md changed since the run began; nothing was written/);
    expect(approved.stdout).toMatch(
      /to keep the note as it is now: run `node \S+ review run full-pass kb\/notes\/agent-is-a-tool-loop\.md --kb \S+ --address \S+( --namespace \S+)?`/,
    );
    expect(await noteText(waiting.checkout)).toBe(hand);
    expect((await selectPairs(waiting.checkout, { notes: [NOTE] })).filter((pair) => pair.status === 'fresh')).toEqual([]);
    expect(await readFile(join(waiting.checkout, packetPath(NOTE, 'full-pass')), 'utf8').catch(() => 'none')).toBe('none');
    expect(await readFile(join(waiting.dir, 'publication.journal.jsonl'), 'utf8').catch(() => 'none')).toBe('none');

    // Keeping the hand edit: the same command opens a run over the edited note and ends the conflicted one.
    const old = runOf('full-pass', NOTE, waiting.start, waiting.checkout);
    const opened = await waiting.fullPass('--detach');
    expect(opened.exitCode).toBe(0);
    expect(opened.stderr).toContain(`cancelled ${old.workflowId}: it ran over an earlier text of ${NOTE}`);
    expect(opened.stderr).toContain(`started ${runOf('full-pass', NOTE, hand, waiting.checkout).workflowId}`);
    await waitFor('the conflicted run to end', async () => (await env().client.workflow.getHandle(old.workflowId).describe()).status.name === 'CANCELLED');
  });
});

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
