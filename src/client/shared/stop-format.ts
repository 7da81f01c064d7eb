/** How a stop reads: kind, disposition, reason, evidence, and exactly one next command (`STOP_RULES`), runnable as printed. */
import path from 'node:path';
import { STOP_RULES, type RunStatus, type Stop } from '../../runs/stop.js';
import { centsUp, nextCap, type SpendTotals } from '../../runs/spend.js';
import { runCommand, type NextCommands } from '../../runs/run-commands.js';
import { runnable } from './command-line.js';

/** The lines under a stop's headline: what the kind carries and the evidence to read first. */
export function stopDetails(stop: Stop, indent: string, runDir?: string | null): string[] {
  const lines: string[] = [];
  switch (stop.kind) {
    case 'usage-limit':
      if (stop.resetAt) lines.push(`${indent}the limit resets at ${stop.resetAt}`);
      else if (stop.probeAt) lines.push(`${indent}no reset time: the account's quota gate probes at ${stop.probeAt}`);
      if (stop.account) lines.push(`${indent}quota gate: ${stop.account} (to try the account now: ${runnable(runCommand.quotaOpen(stop.account))})`);
      break;
    case 'conflict':
    case 'checkout-changed':
      if (stop.paths && stop.paths.length > 0) lines.push(`${indent}paths: ${stop.paths.join(', ')}`);
      break;
    case 'awaiting-approval':
      lines.push(`${indent}inspect: ${stop.proposal.inspect.map((file) => (runDir ? path.join(runDir, file) : file)).join(', ')}`);
      lines.push(`${indent}key: ${stop.proposal.key}`);
      break;
  }
  if (stop.evidence) lines.push(`${indent}evidence: ${stop.evidence}${stop.kind === 'publication-uncertain' ? ' (read it before anything is retried)' : ''}`);
  return lines;
}

/** One stop as a headline (`kind (disposition): reason`) and its details. */
export function stopLines(stop: Stop, indent = '  ', runDir?: string | null): string[] {
  return [`${indent}${stop.kind} (${stop.disposition}): ${stop.reason}`, ...stopDetails(stop, `${indent}  `, runDir)];
}

/** The one next command for these stops; a spend-limit cap is computed from the spend now (in-flight launches report after the stop). */
export function nextStep(
  stops: readonly Stop[],
  status: RunStatus,
  commands: NextCommands,
  spend?: SpendTotals,
): { label: string; command: string } | undefined {
  const stop = stops[0];
  if (status === 'exhausted' || (stop !== undefined && STOP_RULES[stop.kind].by === 'ends')) return { label: 'next', command: commands.ended };
  if (stop === undefined) return undefined;
  const by = STOP_RULES[stop.kind].by;
  if (by === 'approve' && stop.kind === 'awaiting-approval' && commands.approve) return { label: 'approve', command: commands.approve(stop.proposal) };
  if (by === 'acknowledge' && commands.acknowledge) return { label: 'read the changes; to own them and go on', command: commands.acknowledge };
  if (stop.kind === 'spend-limit') {
    const cap =
      spend !== undefined && spend.launches > 0 ? nextCap(spend) : stop.spentUsd !== undefined ? centsUp(stop.spentUsd + (stop.meanUsd ?? 0)) : undefined;
    return { label: 'to spend more, continue with a higher cap', command: `${commands.resume} --max-cost ${cap ?? '<USD>'}` };
  }
  return { label: 'continue with', command: commands.resume };
}

/** Whether a run is stopped only on usage limits it waits out by itself (`resumesAt`, auto-resume): its next line says so. */
export function waitsOutByItself(stops: readonly Stop[], status: RunStatus, resumesAt: string | undefined): boolean {
  return resumesAt !== undefined && status === 'stopped' && stops.length > 0 && stops.every((stop) => stop.kind === 'usage-limit');
}

/** The next-command line, or nothing when the run waits on nothing; a usage-limit wait it ends by itself names the resume as the sooner way. */
export function nextLine(stops: readonly Stop[], status: RunStatus, commands: NextCommands, indent = '  ', spend?: SpendTotals, resumesAt?: string): string[] {
  const next = nextStep(stops, status, commands, spend);
  if (next && waitsOutByItself(stops, status, resumesAt))
    return [`${indent}nothing to type: it resumes by itself at ${resumesAt} (--auto-resume); to go on sooner: ${runnable(next.command)}`];
  return next ? [`${indent}${next.label}: ${runnable(next.command)}`] : [];
}
