/**
 * The commands that name a run, in plain form, built here once. The CLI prints them through `runnable` (src/client/shared/command-line.ts);
 * workflows show them through `webUiCommand`. PURE MODULE.
 */
import type { Proposal } from './stop.js';

/** Their first words after `commonplace`. */
const TAKES_KB = [
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

export const takesKb = (rest: string) => TAKES_KB.some((words) => rest === words || rest.startsWith(`${words} `));

export const namesKb = (rest: string) => /(^|\s)--kb(\s|=|$)/.test(rest);

/** Quoted only when a POSIX shell must have it so. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command and the note in parentheses after it (`commonplace analysis reset R   (it says what it discards …)`). */
export function splitNote(command: string): { line: string; note: string | undefined } {
  const [, line = command, note] = /^(.*?)(?:\s{2,}\((.*)\))?$/s.exec(command.trim()) ?? [];
  return { line, note };
}

/** The memo field naming the address a run's starter was given, so the Web UI's commands name it too. */
export const ADDRESS_MEMO = 'commonplaceAddress';

export interface WebUiPlace {
  checkoutId: string | undefined;
  namespace: string;
  address: string | undefined;
}

/**
 * Runs as pasted from any directory: `--kb` names the checkout by its ID, and the address and a namespace other than `default` are
 * named. The binary is the linked `commonplace` (README: `npm link`): a workflow knows no host's paths.
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

/** By how a stop ends (`STOP_RULES`); `ended`: the one step left to an exhausted run. */
export interface NextCommands {
  resume: string;
  approve?: (proposal: Proposal) => string;
  acknowledge?: string;
  ended: string;
}

export const runCommand = {
  sweepResume: (runId: string) => `commonplace review run gates --resume ${runId}`,
  sweepRetry: (runId: string) => `commonplace review retry ${runId}`,
  compareResume: (runId: string) => `commonplace review compare --resume ${runId}`,
  /** Continues the run over the same text, or starts a fresh one after it ended. */
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

export function sweepNext(runId: string): NextCommands {
  return { resume: runCommand.sweepResume(runId), acknowledge: runCommand.acknowledge(runId), ended: runCommand.sweepRetry(runId) };
}

export function compareNext(runId: string): NextCommands {
  return { resume: runCommand.compareResume(runId), acknowledge: runCommand.acknowledge(runId), ended: runCommand.compareResume(runId) };
}

/** As the CLI prints them: the ended step says what the rerun does. */
export function editNext(run: { kind: string; note: string; runId: string }): NextCommands {
  const rerun = runCommand.editRerun(run);
  return {
    resume: rerun,
    approve: (proposal) => runCommand.approve(run.runId, proposal),
    acknowledge: runCommand.acknowledge(run.runId),
    ended: `${rerun}   (starts a fresh run over the same note text)`,
  };
}

/** As the CLI prints them: the ended step says what the reset does. */
export function analysisNext(runId: string): NextCommands {
  return {
    resume: runCommand.analysisRun(runId),
    ended: `${runCommand.analysisReset(runId)}   (it says what it discards; then prepare the system again: the plan's budgets are fixed for a run)`,
  };
}
