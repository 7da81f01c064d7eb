/**
 * The commands the Web UI's current details show run as pasted from any directory: the checkout by the
 * ID its workflow ID carries, the run's namespace when it is not `default`, and the address its starter
 * named (src/runs/run-commands.ts `webUiCommand`, src/runs/workflow-ids.ts `workflowCheckoutId`).
 */
import { describe, expect, test } from '@jest/globals';
import { analysisNext, editNext, runCommand, sweepNext, webUiCommand } from '../../src/runs/run-commands.js';
import {
  analysisWorkflowId,
  compareBatchId,
  compareRunId,
  compareWorkflowId,
  editWorkflowId,
  gateBatchId,
  probeWorkflowId,
  quotaGateId,
  scheduledSweepRunId,
  sweepRunId,
  sweepWorkflowId,
  workflowCheckoutId,
  workflowKindOf,
} from '../../src/runs/workflow-ids.js';

const CHECKOUT = '32ae503a';
const sweep = sweepWorkflowId(sweepRunId(CHECKOUT, '0123456789abcdef'));
const compare = compareWorkflowId(compareRunId(CHECKOUT, 'fedcba9876543210'));

describe('the checkout ID a workflow ID carries', () => {
  test.each([
    ['an analysis run', analysisWorkflowId(CHECKOUT, 'AAS-20260101-abcdef'), CHECKOUT],
    ['a sweep', sweep, CHECKOUT],
    ["a sweep's batch, resumed", gateBatchId(sweep, 2, 1), CHECKOUT],
    ["a schedule's sweep in another namespace", `${sweepWorkflowId(scheduledSweepRunId(CHECKOUT, 'nightly', 'team'))}-2026-01-01T00:00:00Z`, CHECKOUT],
    ['a compare run', compare, CHECKOUT],
    ["a compare run's batch", compareBatchId(compare, 'r1', 0, 0), CHECKOUT],
    ['a full pass', editWorkflowId('full-pass', CHECKOUT, 'kb/notes/a-note.md', 'ab'.repeat(32)), CHECKOUT],
    ['a revise run', editWorkflowId('revise', CHECKOUT, 'kb/notes/deep/b.md', 'cd'.repeat(32)), CHECKOUT],
    ['a probe', probeWorkflowId('fake', new Date('2026-01-01T00:00:00Z'), 'x1'), undefined],
    ['a quota gate', quotaGateId('claude-default'), undefined],
    ['an ID of none of ours', 'other/32ae503a/x', undefined],
  ])('%s: %s', (_kind, workflowId, expected) => {
    expect(workflowCheckoutId(workflowId)).toBe(expected);
    if (expected !== undefined) expect(workflowKindOf(workflowId)).toBeDefined();
  });
});

describe('a command as the Web UI shows it', () => {
  const home = { checkoutId: CHECKOUT, namespace: 'default', address: undefined };
  test.each([
    ['a command that takes --kb names the checkout by its ID', sweepNext('GS-1').resume, home, `commonplace review run gates --resume GS-1 --kb ${CHECKOUT}`],
    [
      'the namespace when it is not default, and the address the starter named',
      runCommand.acknowledge('GS-1'),
      { ...home, namespace: 'team-a', address: '10.0.0.5:7233' },
      `commonplace review acknowledge GS-1 --kb ${CHECKOUT} --address 10.0.0.5:7233 --namespace team-a`,
    ],
    [
      'a note after the command becomes a shell comment after the flags',
      analysisNext('AAS-1').ended,
      home,
      `commonplace analysis reset AAS-1 --kb ${CHECKOUT}   # it says what it discards; then prepare the system again: the plan's budgets are fixed for a run`,
    ],
    [
      "an editing run's rerun over its note",
      editNext({ kind: 'full-pass', note: 'kb/notes/a.md', runId: 'FP-1' }).resume,
      home,
      `commonplace review run full-pass kb/notes/a.md --kb ${CHECKOUT}`,
    ],
    [
      'a command that takes no --kb gets the connection only',
      runCommand.quotaOpen('claude-default'),
      { checkoutId: undefined, namespace: 'ns', address: '127.0.0.1:7300' },
      'commonplace quota open claude-default --address 127.0.0.1:7300 --namespace ns',
    ],
    [
      'a `temporal workflow query` inspect line gets the connection',
      runCommand.queryProgress('gates/GS-1'),
      { ...home, namespace: 'ns', address: '127.0.0.1:7300' },
      'temporal workflow query --workflow-id gates/GS-1 --type progress --address 127.0.0.1:7300 --namespace ns',
    ],
    ['a run with no checkout in its ID names none', 'commonplace probe fake', { ...home, checkoutId: undefined }, 'commonplace probe fake'],
    [
      'a namespace the shell would split is quoted',
      runCommand.cancel('GS-1'),
      { ...home, namespace: 'a b' },
      `commonplace review cancel GS-1 --kb ${CHECKOUT} --namespace 'a b'`,
    ],
    ['a command that names --kb keeps its own', 'commonplace review status --kb /x', home, 'commonplace review status --kb /x'],
    ['text that is no command is left as it is', 'nothing to type', { ...home, namespace: 'ns' }, 'nothing to type'],
  ])('%s', (_title, command, place, expected) => {
    expect(webUiCommand(command, place)).toBe(expected);
  });
});
