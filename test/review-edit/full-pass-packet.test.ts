// A full pass's packet and its approval while it waits on its manifest, apart from the runs of `review run
// full-pass` (full-pass.test.ts) and from the checkout guard and the run's identity (full-pass-identity.test.ts):
// one file each keeps them under the 90 s budget.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packetPath } from '../../src/review/edit/packet.js';
import { selectPairs } from '../../src/review/status.js';
import { waitFor } from '../helpers/fake.js';
import { editedText, editorRule, launches, NOTE, noteText, reviewsPass, runDir, runOf, sha256, fullPassSetup } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { expectShape } from '../helpers/json-shape.js';
import { computedOnce } from '../helpers/once.js';

const { env, address } = useDevServerWithCliWorker();
const setup = (rules: Parameters<typeof fullPassSetup>[1]) => fullPassSetup(address(), rules);

describe('commonplace review packet', () => {
  describe("a packet's recorded hashes compared with the note, before a pass, after its publication and after a later edit", () => {
    const results = computedOnce(async () => {
      const { checkout, cli, fullPass } = await setup([editorRule({ edited: '', decision: 'no-edit' }), { attempts: [reviewsPass] }]);
      const start = await noteText(checkout);
      const { runId } = runOf('full-pass', NOTE, start, checkout);
      const before = await cli('review', 'packet', NOTE);
      const passed = await fullPass();
      const byNote = await cli('review', 'packet', NOTE);
      const byNoteJson = await cli('review', 'packet', NOTE, '--json');
      const byRun = await cli('review', 'packet', runId);
      const changed = `${start.trimEnd()}\n\nLater.\n`;
      await writeFile(join(checkout, NOTE), changed);
      const stale = await cli('review', 'packet', NOTE);
      const staleJson = await cli('review', 'packet', NOTE, '--json');
      return { start, changed, before, passed, byNote, byNoteJson, byRun, stale, staleJson };
    });

    test('before any pass, the note has no published packet', () => {
      const { before } = results();
      expect(before.stderr).toMatch(/has no published packet/);
    });

    test('after the pass is published, the packet named by the note describes the note as the pass left it', () => {
      const { start, passed, byNote } = results();
      expect(passed.exitCode).toBe(0);
      expect(byNote.exitCode).toBe(0);
      expect(byNote.stdout).toContain(`packet kb/reports/state/review/packets/notes/agent-is-a-tool-loop.md/full-pass.md`);
      expect(byNote.stdout).toMatch(new RegExp(`note now +${sha256(start).slice(0, 12)}: the packet describes the note: unchanged, as the pass left it`));
    });

    test("the packet named by the run ID is the run's published packet", () => {
      const { byRun } = results();
      expect(byRun.exitCode).toBe(0);
      expect(byRun.stdout).toMatch(/packet kb\/reports\/state\/review\/runs\/\S+\/packet\.md \(published\)/);
    });

    test('once the note changes, the packet exits 2 saying it no longer describes the note', () => {
      const { changed, stale } = results();
      expect(stale.exitCode).toBe(2);
      expect(stale.stdout).toContain(`no longer describes the note: it changed since (it hashes to ${sha256(changed).slice(0, 12)} now)`);
    });

    test('with --json each packet is one review-packet document: its hashes, the note now and the verdict', () => {
      const { start, changed, byNoteJson, staleJson } = results();
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
    expect((await selectPairs(waiting.checkout, { notes: [NOTE], criteria: ['gates'] })).filter((pair) => pair.status === 'fresh')).toEqual([]);
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
    expect((await selectPairs(waiting.checkout, { notes: [NOTE], criteria: ['gates'] })).filter((pair) => pair.status === 'fresh')).toEqual([]);
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
