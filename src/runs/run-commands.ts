/**
 * The commands that name a run, in their plain form (`commonplace review run gates --resume GS-…`),
 * built here once: what a stop leads to (`NextCommands`, by the stop's rule) and the single commands
 * a message names (cancel, inspect, reset, packet, …). The CLI prints them runnable through
 * `runnable` (src/client/shared/command-line.ts: the binary as invoked, `--kb`, the connection);
 * workflows carry them in their progress as they are, and show them in the Web UI's current details
 * through `webUiCommand` (the linked `commonplace`, `--kb <checkout ID>`, the connection).
 *
 * PURE MODULE: string code only; workflows import it.
 */
import type { Proposal } from './stop.js';

/** The commands that take `--kb` (their first words after `commonplace`). */
export const TAKES_KB = [
  'analysis prepare',
  'analysis run',
  'analysis inspect',
  'analysis reset',
  'analysis integrate',
  'analysis install-method',
  'review run',
  'review retry',
  'review status',
  'review packet',
  'review approve',
  'review acknowledge',
  'review cancel',
  'review inspect',
  'validate',
  'worker',
  'probe',
] as const;

/** Whether a `commonplace` command (its words after `commonplace`) takes `--kb`. */
export const takesKb = (rest: string) => TAKES_KB.some((words) => rest === words || rest.startsWith(`${words} `));

/** Whether a command's words name `--kb` already. */
export const namesKb = (rest: string) => /(^|\s)--kb(\s|=|$)/.test(rest);

/** A word as a POSIX shell reads it back: quoted only when it must be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command and the note in parentheses after it (`commonplace analysis reset R   (it says what it discards …)`). */
export function splitNote(command: string): { line: string; note: string | undefined } {
  const [, line = command, note] = /^(.*?)(?:\s{2,}\((.*)\))?$/s.exec(command.trim()) ?? [];
  return { line, note };
}

/** The memo field naming the Temporal address a run's starter was given (`--address` or TEMPORAL_ADDRESS), so the Web UI's commands name it too. */
export const ADDRESS_MEMO = 'commonplaceAddress';

/** Where a run's Web UI commands are to run: its checkout (by ID), its namespace, and the address its starter named. */
export interface WebUiPlace {
  checkoutId: string | undefined;
  namespace: string;
  address: string | undefined;
}

/**
 * A command as the Web UI's current details show it, to run as pasted from any directory: a
 * `commonplace …` command that takes `--kb` names the checkout by its ID (which `--kb` accepts on a host
 * that has the checkout on record: src/checkout/), and every `commonplace …` or `temporal …`
 * command names the address its starter named and a namespace other than `default`; a note after it
 * becomes a shell comment. The binary is the linked `commonplace` (README: `npm link` once): a workflow
 * knows no host's paths.
 */
export function webUiCommand(command: string, place: WebUiPlace): string {
  const { line, note } = splitNote(command);
  const match = /^(commonplace|temporal)(?:\s+(.*))?$/.exec(line);
  if (!match) return command;
  const [, binary, rest = ''] = match;
  const kb = binary === 'commonplace' && place.checkoutId !== undefined && takesKb(rest) && !namesKb(rest) ? ['--kb', place.checkoutId] : [];
  const connection = [
    ...(place.address !== undefined ? ['--address', place.address] : []),
    ...(place.namespace !== 'default' ? ['--namespace', place.namespace] : []),
  ];
  const words = [binary, rest, ...[...kb, ...connection].map(shellWord)].filter((word) => word !== '');
  return `${words.join(' ')}${note === undefined ? '' : `   # ${note}`}`;
}

/** The commands a run's stops lead to, by how a stop ends. */
export interface NextCommands {
  /** The `resume` rule: the same command again. */
  resume: string;
  /** The `approve` rule: the approval command for the proposal. */
  approve?: (proposal: Proposal) => string;
  /** The `acknowledge` rule. */
  acknowledge?: string;
  /** The run ended (status exhausted): the one step that is left. */
  ended: string;
}

/** An editing run as its commands name it. */
export interface EditRunNamed {
  kind: string;
  note: string;
  runId: string;
}

export const runCommand = {
  sweepResume: (runId: string) => `commonplace review run gates --resume ${runId}`,
  sweepRetry: (runId: string) => `commonplace review retry ${runId}`,
  compareResume: (runId: string) => `commonplace review compare --resume ${runId}`,
  /** An editing run's command over its note: continues the run over the same text, or starts a fresh one after it ended. */
  editRerun: (run: { kind: string; note: string }) => `commonplace review run ${run.kind} ${run.note}`,
  approve: (runId: string, proposal: Pick<Proposal, 'path' | 'key'>) => `commonplace review approve ${runId} ${proposal.path} --key ${proposal.key}`,
  acknowledge: (runId: string) => `commonplace review acknowledge ${runId}`,
  cancel: (runId: string) => `commonplace review cancel ${runId}`,
  packet: (runId: string) => `commonplace review packet ${runId}`,
  analysisRun: (runId: string) => `commonplace analysis run ${runId}`,
  analysisInspect: (runId: string) => `commonplace analysis inspect ${runId}`,
  /** `yes`: the reset that discards, not the one that says what it would. */
  analysisReset: (runId: string, yes?: 'yes') => `commonplace analysis reset ${runId}${yes ? ' --yes' : ''}`,
  analysisIntegrate: (runId: string) => `commonplace analysis integrate ${runId}`,
  quotaOpen: (account: string) => `commonplace quota open ${account}`,
  /** A workflow's progress query through the Temporal CLI (`--type progress`, a batch's `batchProgress`). */
  queryProgress: (workflowId: string, type = 'progress') => `temporal workflow query --workflow-id ${workflowId} --type ${type}`,
  /** Temporal's own end of a run that takes no `review cancel` (a probe, a quota gate). */
  terminate: (workflowId: string) => `temporal workflow terminate --workflow-id ${workflowId}`,
} as const;

/** The commands a sweep's stops lead to. */
export function sweepNext(runId: string): NextCommands {
  return { resume: runCommand.sweepResume(runId), acknowledge: runCommand.acknowledge(runId), ended: runCommand.sweepRetry(runId) };
}

/** The commands a compare run's stops lead to. */
export function compareNext(runId: string): NextCommands {
  return { resume: runCommand.compareResume(runId), acknowledge: runCommand.acknowledge(runId), ended: runCommand.compareResume(runId) };
}

/** The commands an editing run's stops lead to, as the CLI prints them (its ended step says what the rerun does). */
export function editNext(run: EditRunNamed): NextCommands {
  const rerun = runCommand.editRerun(run);
  return {
    resume: rerun,
    approve: (proposal) => runCommand.approve(run.runId, proposal),
    acknowledge: runCommand.acknowledge(run.runId),
    ended: `${rerun}   (starts a fresh run over the same note text)`,
  };
}

/** The commands an analysis run's stops lead to, as the CLI prints them (its ended step says what the reset does). */
export function analysisNext(runId: string): NextCommands {
  return {
    resume: runCommand.analysisRun(runId),
    ended: `${runCommand.analysisReset(runId)}   (it says what it discards; then prepare the system again: the plan's budgets are fixed for a run)`,
  };
}
