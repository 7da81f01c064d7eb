// What the Temporal Web UI shows of a gate sweep: its batch children found by their search
// attributes, a summary on every activity the sweep and its batches schedule, and current details
// that fit a screen when the sweep stops.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject } from '../../src/search-attributes.js';
import { BATCH_KIND } from '../../src/workflows/gate-sweep.js';
import { clip, DETAIL_LINE, pathsLine, STOP_REASON } from '../../src/workflows/current-details.js';
import { waitFor } from '../helpers/fake.js';
import { someNotes } from '../helpers/kb.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep, heldFramingMismatch, startSweep } from '../helpers/sweep.js';

const { env } = useDevServer();

const gates = ['frontmatter/*', 'sentence/framing-mismatch'];

async function sweepSetup(rules: Parameters<typeof fakeSweep>[0], notes: string[], concurrency = 2) {
  const sweep = await fakeSweep(rules, { notes, gates });
  const input = sweep.input({ concurrency, batchSize: 2 });
  /** Starts the sweep as the CLI does: with the project's search attributes. */
  const start = () =>
    startSweep(env(), input, {
      typedSearchAttributes: [
        { key: CommonplaceKind, value: 'gates' },
        { key: CommonplaceStatus, value: 'running' },
        { key: CommonplaceSubject, value: notes.join(' ') },
        { key: CommonplaceProfile, value: 'fake' },
      ],
    });
  return { ...sweep, runId: input.runId, start, worker: () => sweep.worker(env()) };
}

/** The workflow IDs of the batches a sweep started, from its history. */
async function batchIds(workflowId: string): Promise<string[]> {
  const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const started = event.startChildWorkflowExecutionInitiatedEventAttributes;
    return started?.workflowId ? [started.workflowId] : [];
  });
}

/** Each ActivityTaskScheduled event of a workflow's history: its activity type and its summary (undefined when it has none). */
async function scheduledActivities(workflowId: string): Promise<{ type: string; summary: string | undefined }[]> {
  const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => {
      const summary = event.userMetadata?.summary as temporal.api.common.v1.IPayload | null | undefined;
      return {
        type: event.activityTaskScheduledEventAttributes!.activityType!.name!,
        summary: summary ? defaultPayloadConverter.fromPayload<string>(summary) : undefined,
      };
    });
}

describe('a gate sweep in the Web UI', () => {
  test('its batches carry the sweep subject and profile under kind gate-batch, their status true at close, and every activity of sweep and batches has a summary', async () => {
    const notes = await someNotes(2);
    const setup = await sweepSetup([{ attempts: [{ review: 'pass' }] }], notes);
    const summary = (await (await setup.worker()).runUntil(async () => (await setup.start()).result())) as SweepSummary;
    expect(summary.status).toBe('completed');
    const sweepId = `gates/${setup.runId}`;
    const batches = await batchIds(sweepId);
    expect(batches.length).toBeGreaterThan(1);

    // (a) Visibility finds them by kind; wait until it lists every batch, closed.
    const query = `${CommonplaceKind.name} = "${BATCH_KIND}" AND WorkflowId STARTS_WITH "${sweepId}/"`;
    let listed: { workflowId: string; attributes: Record<string, string | undefined> }[] = [];
    await waitFor('visibility to list every batch, completed', async () => {
      listed = [];
      for await (const execution of env().client.workflow.list({ query })) {
        const attributes = execution.typedSearchAttributes;
        listed.push({
          workflowId: execution.workflowId,
          attributes: {
            kind: attributes.get(CommonplaceKind),
            status: attributes.get(CommonplaceStatus),
            subject: attributes.get(CommonplaceSubject),
            profile: attributes.get(CommonplaceProfile),
          },
        });
      }
      return listed.length === batches.length && listed.every((batch) => batch.attributes.status === 'completed');
    });
    expect(listed.map((batch) => batch.workflowId).sort()).toEqual([...batches].sort());
    for (const batch of listed) expect(batch.attributes).toEqual({ kind: BATCH_KIND, status: 'completed', subject: notes.join(' '), profile: 'fake' });
    // The sweeps' own kind does not list its batches.
    const sweeps: string[] = [];
    for await (const execution of env().client.workflow.list({ query: `${CommonplaceKind.name} = "gates" AND WorkflowId STARTS_WITH "${sweepId}"` }))
      sweeps.push(execution.workflowId);
    expect(sweeps).toEqual([sweepId]);

    const first = await env().client.workflow.getHandle(batches[0]!).describe();
    expect(await first.staticSummary()).toBe(`gate sweep ${setup.runId}: batch 1 of ${batches.length}`);
    const details = await first.staticDetails();
    expect(details).toContain(`**gate batch 1 of ${batches.length}**`);
    expect(details).toContain(`| sweep | ${setup.runId} |`);
    expect(details).toContain(`| parent workflow | ${sweepId} |`);
    expect(details).toMatch(/\| pairs \| the sweep has \d+ in \d+ units \|/);

    // (b) Every ActivityTaskScheduled event, in the sweep and in each batch, has a summary naming its unit where it has one.
    const scheduled = (await Promise.all([sweepId, ...batches].map(scheduledActivities))).flat();
    expect(scheduled.filter((activity) => activity.summary === undefined)).toEqual([]);
    const types = new Set(scheduled.map((activity) => activity.type));
    for (const type of ['prepareSweep', 'finishSweep', 'loadBatch', 'captureUnit', 'launch', 'acceptUnit']) expect(types).toContain(type);
    const unit = new RegExp(`^kb/notes/\\S+\\.md × (frontmatter|sentence)/\\S+, attempt \\d+$`);
    for (const activity of scheduled.filter((each) => each.type === 'captureUnit'))
      expect(activity.summary).toMatch(new RegExp(`^capture ${unit.source.slice(1)}`));
    for (const activity of scheduled.filter((each) => each.type === 'acceptUnit'))
      expect(activity.summary).toMatch(new RegExp(`^accept ${unit.source.slice(1)}`));
    for (const activity of scheduled.filter((each) => each.type === 'launch')) expect(activity.summary).toMatch(unit);
  });

  test('a sweep stopped on eight changed notes shows a bounded stop: the paths that fit a line named, the rest counted, and where to read it in full', async () => {
    const notes = await someNotes(8);
    // The framing-mismatch launch is held open until the notes have been edited: the edits land in flight, however slow the machine.
    // One unit at a time: a launch beside the held one could be checked against the KB while the eight edits are half written,
    // and stop the sweep first, naming only the notes edited so far (seen under load: 7 of 8).
    const setup = await sweepSetup(heldFramingMismatch, notes.slice(0, 1), 1);
    await (
      await setup.worker()
    ).runUntil(async () => {
      const handle = await setup.start();
      await waitFor('the held launch to start', async () => (await setup.starts()).some((entry) => entry.rule === 0), 120_000);
      for (const note of notes)
        await writeFile(join(setup.checkout, note), `${await readFile(join(setup.checkout, note), 'utf8')}\nAn edit made while a pair was in flight.\n`);
      await setup.releaseLaunch();
      let progress: SweepProgress | undefined;
      await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 120_000);
      const stop = progress!.stops[0]!;
      expect(stop.kind === 'checkout-changed' && stop.paths.length).toBe(notes.length);
      const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
      const lines = details.split('\n\n');
      expect(lines[0]).toMatch(/^batch \d+ of \d+: \d+ of \d+ pairs done/);
      const paths = lines.find((line) => line.startsWith('paths: '));
      const named = /^paths: (.+) and (\d+) more$/.exec(paths ?? '');
      expect(named).not.toBeNull();
      const shown = named![1]!.split(', ');
      expect(shown).toEqual(notes.slice(0, shown.length));
      expect(shown.length + Number(named![2])).toBe(notes.length);
      // The commands name the file's namespace (this run's ID carries no checkout ID, and its starter named no address).
      const namespace = env().namespace === 'default' ? '' : ` --namespace ${env().namespace}`;
      expect(lines).toContain(`in full: temporal workflow query --workflow-id gates/${setup.runId} --type progress${namespace}`);
      expect(lines).toContain(`next: \`commonplace review acknowledge ${setup.runId}${namespace}\``);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(STOP_REASON + 2);
      for (const note of notes.slice(5)) expect(details).not.toContain(note);
      await handle.executeUpdate('acknowledge', { args: [{ paths: stop.kind === 'checkout-changed' ? stop.paths : [] }] });
      expect(((await handle.result()) as SweepSummary).status).toBe('completed');
    });
  });
});

describe('clip: a line of current details cut to fit', () => {
  test.each([
    ['a short line', 20, 'a short line'],
    ['the quick brown fox jumps over the lazy dog', 20, 'the quick brown …'],
    ['spaces   and\nnewlines   become one', 40, 'spaces and newlines become one'],
    ['one: two, three; four', 14, 'one: two …'],
    [`${'x'.repeat(30)} tail`, 10, `${'x'.repeat(30)} …`],
  ])('%j at %i characters is %j, never cut inside a word', (text, max, clipped) => {
    expect(clip(text, max)).toBe(clipped);
  });

  test('a clipped line is never longer than its bound, and every word it keeps is whole', () => {
    const text =
      'The KB changed outside review state while launch GS-1/kb/notes/a.md/1 ran: kb/notes/a.md, kb/notes/b.md and 3 more; its answer was not accepted';
    for (let max = 20; max <= text.length; max += 7) {
      const line = clip(text, max);
      expect(line.length).toBeLessThanOrEqual(max);
      const words = text.split(' ');
      for (const word of line.replace(/ …$/, '').split(' '))
        expect(words.some((whole) => whole === word || (whole.startsWith(word) && /^[,;:]$/.test(whole.slice(word.length))))).toBe(true);
    }
    expect(DETAIL_LINE).toBeLessThanOrEqual(STOP_REASON);
  });

  test.each([
    [['a.md'], 40, { line: 'paths: a.md', named: 1 }],
    [['kb/notes/long-a.md', 'kb/notes/long-b.md', 'kb/notes/long-c.md'], 40, { line: 'paths: kb/notes/long-a.md and 2 more', named: 1 }],
    [['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md', 'g.md'], 80, { line: 'paths: a.md, b.md, c.md, d.md, e.md and 2 more', named: 5 }],
    [['kb/notes/long-a.md', 'kb/notes/long-b.md', 'kb/notes/long-c.md'], 60, { line: 'paths: kb/notes/long-a.md, kb/notes/long-b.md and 1 more', named: 2 }],
  ])('the paths %j on a line of %i characters', (paths, max, expected) => {
    expect(pathsLine(paths, max)).toEqual(expected);
  });
});
