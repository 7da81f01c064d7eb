import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePacket } from '../../src/review/edit/packet.js';
import { packetPath } from '../../src/review/edit/packet.js';
import { CRITIQUE_INSTRUCTION } from '../../src/review/paths.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { readResultFile } from '../../src/review/result-file.js';
import { selectPairs } from '../../src/review/status.js';
import { editedText, editorRule, gatesOf, launches, NOTE, noteText, reviewsPass, runDir, runOf, sha256, cliOn, fullPassSetup } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { expectShape } from '../helpers/json-shape.js';

const { env, address } = useDevServerWithCliWorker();
const setup = (rules: Parameters<typeof fullPassSetup>[1]) => fullPassSetup(address(), rules);

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
    const pairs = await selectPairs(checkout, { notes: [NOTE], criteria: ['gates'] });
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
      freshAtStop = (await selectPairs(checkout, { notes: [NOTE], criteria: ['gates'] })).filter((pair) => pair.status === 'fresh');
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
      pairs = await selectPairs(checkout, { notes: [NOTE], criteria: ['gates'] });
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
