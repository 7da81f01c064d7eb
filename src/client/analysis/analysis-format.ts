import type { Client } from '@temporalio/client';
import type { Stop } from '../../runs/stop.js';
import type { AnalysisProgress, AnalysisResult, AttemptRecord } from '../../analysis/progress.js';
import { progressQuery } from '../../workflows/analysis.js';
import type { FollowFormat } from '../shared/follow.js';
import { nextLine, nextStep, stopLines, waitsOutByItself } from '../shared/stop-format.js';
import { analysisNext, runCommand } from '../../runs/run-commands.js';
import { spendLine, usd } from '../../runs/spend.js';
import { liveLaunches, liveSuffix } from '../shared/live-launches.js';
import { spendLines } from '../shared/spend.js';
import { runnable } from '../shared/command-line.js';

const short = (sha: string | undefined) => (sha === undefined ? '-' : sha.slice(0, 12));
const pad = (text: string, width: number) => (text.length >= width ? `${text} ` : text.padEnd(width));

/** One line of live progress: stage, attempts so far, launches in flight, budgets that are being spent. */
export function progressLine(progress: AnalysisProgress): string {
  const spent = progress.attempts.filter((attempt) => attempt.attempt !== null).length;
  const asking = progress.inFlight.map((launch) => `${launch.role}${launch.kind === 'write' ? '' : ` (${launch.kind})`}`).join(', ');
  const budgets = Object.entries(progress.budgets)
    .filter(([, budget]) => budget.used > 1)
    .map(([role, budget]) => `${role} ${budget.used}/${budget.max}`)
    .join(', ');
  const cost = progress.spend && (progress.spend.launches > 0 || progress.spend.capUsd !== undefined) ? `; ${spendLine(progress.spend)}` : '';
  return `${progress.runId}: ${progress.stage}; ${spent} attempts, ${Object.keys(progress.members).length} members${asking ? `; asking ${asking}` : ''}${budgets ? `; budgets ${budgets}` : ''}${cost}`;
}

function stopsOf(progress: AnalysisProgress): string[] {
  const lines: string[] = [];
  for (const stop of progress.stops) lines.push(...stopLines(stop, '  '));
  // Said here only when the next line does not say it (a usage limit beside another stop).
  if (
    progress.resumesAt &&
    progress.stops.some((stop) => stop.kind === 'usage-limit') &&
    !waitsOutByItself(progress.stops, progress.status, progress.resumesAt)
  )
    lines.push(`    it resumes by itself at ${progress.resumesAt} (--auto-resume)`);
  return lines;
}

/** A stop as the operator reads it, with the one command to type next. */
export function formatStop(progress: AnalysisProgress): string {
  const lines = [`run ${progress.runId} stopped at ${progress.stage}:`, ...stopsOf(progress)];
  lines.push('  nothing completed before the stop is asked again');
  lines.push(...nextLine(progress.stops, progress.status, analysisNext(progress.runId), '  ', progress.spend, progress.resumesAt));
  return lines.join('\n');
}

/** A run that ended exhausted: the stop that ended it and the one step left. */
export function formatExhausted(runId: string, stop: Stop | undefined, stage: string): string {
  const lines = [`run ${runId} ended exhausted (${stage}):`];
  if (stop) lines.push(...stopLines(stop, '  '));
  lines.push(...nextLine(stop ? [stop] : [], 'exhausted', analysisNext(runId)));
  return lines.join('\n');
}

/** What a finished run came to, and how it closed; an exhausted run with the one step left. */
export function formatResult(result: AnalysisResult): { text: string; status: AnalysisResult['status']; next?: string } {
  if (result.status === 'exhausted') {
    const stop = result.stop ?? result.progress.stops[0];
    const next = nextStep(stop ? [stop] : [], 'exhausted', analysisNext(result.runId))?.command;
    return { text: formatExhausted(result.runId, stop, result.progress.stage), status: 'exhausted', ...(next !== undefined && { next }) };
  }
  const { progress } = result;
  const spent = progress.attempts.filter((attempt) => attempt.attempt !== null);
  const kinds = (kind: AttemptRecord['kind']) => spent.filter((attempt) => attempt.kind === kind).length;
  const publication = result.publication;
  const disposition = result.disposition ?? (result.status === 'blocked' ? 'blocked' : 'published');
  const lines = [
    disposition !== 'published'
      ? `run ${result.runId} ended ${disposition}: the boundary's result is kept local, nothing else was asked`
      : publication !== undefined
        ? `run ${result.runId} completed: the artifact is published to ${publication.destination} on branch analysis/${result.runId}`
        : `run ${result.runId} completed: the artifact is assembled`,
    `  manifest   ${result.manifest ?? '-'}`,
    `  members    ${Object.keys(result.files ?? {}).length}`,
    `  attempts   ${spent.length} (${kinds('re-ask')} re-asked after a check, ${kinds('correction')} corrections, ${kinds('fresh')} fresh asks); launches ${progress.attempts.length}`,
    `  artifact   ${progress.runDir}/artifact`,
    ...spendLines(progress.spend, '  ', 11),
  ];
  if (publication !== undefined) {
    lines.push(`  published  ${publication.destination}/ (commit ${publication.commit.slice(0, 12)}; provenance in ${publication.manifest})`);
    lines.push(`  next       ${runnable(`${runCommand.analysisIntegrate(result.runId)}   (merges the run branch into your branch)`)}`);
  }
  return { text: lines.join('\n'), status: result.status };
}

/** How the follow loop reads an analysis; with a client, the line adds what its running launches are doing. */
export function analysisFormat(client?: Client, json = false): FollowFormat<AnalysisProgress, AnalysisResult> {
  const line = client
    ? async (progress: AnalysisProgress) => `${progressLine(progress)}${liveSuffix(await liveLaunches(client, progress.workflowId))}`
    : progressLine;
  const next = (progress: AnalysisProgress) => nextStep(progress.stops, progress.status, analysisNext(progress.runId), progress.spend)?.command;
  return { query: progressQuery, line, stopped: formatStop, result: formatResult, next, json };
}

/** `inspect`: the whole run — stage, stop and evidence, budgets, members and their checks, every attempt. */
export function formatInspect(progress: AnalysisProgress, where: string): string {
  const lines = [`run ${progress.runId}${progress.system ? ` of ${progress.system}` : ''}: ${progress.status} at ${progress.stage} (${where})`];
  lines.push(`  run directory ${progress.runDir}`);
  if (progress.source) lines.push(`  source        ${progress.source.identity}`);
  if (progress.profile) lines.push(`  profile       ${progress.profile}`);
  lines.push(...spendLines(progress.spend, '  ', 14));
  if (progress.disposition) lines.push(`  disposition   ${progress.disposition}`);
  if (progress.manifest) lines.push(`  manifest      ${progress.manifest}`);
  if (progress.publication)
    lines.push(
      `  published     ${progress.publication.destination}/ at commit ${progress.publication.commit.slice(0, 12)} (journal ${progress.publication.journal})`,
    );
  if (progress.stops.length > 0) {
    lines.push(progress.status === 'exhausted' ? 'ended by' : 'stop');
    lines.push(...stopsOf(progress));
    lines.push(...nextLine(progress.stops, progress.status, analysisNext(progress.runId), '  ', progress.spend, progress.resumesAt));
  }
  lines.push("budgets (attempts used of the plan's budget)");
  for (const [role, budget] of Object.entries(progress.budgets))
    lines.push(`  ${pad(role, 24)}${budget.used}/${budget.max} used, ${budget.max - budget.used} left`);
  lines.push('members');
  const order = Object.keys(progress.budgets);
  const memberList = Object.values(progress.members).sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role));
  if (memberList.length === 0) lines.push('  none yet');
  for (const member of memberList) {
    const verified = member.verified
      ? `${member.verified.outcome} by ${member.verified.by}${member.verified.sha256 !== member.sha256 ? ' (an earlier version)' : ''}`
      : 'not verified';
    lines.push(
      `  ${pad(member.role, 24)}${pad(member.path, 26)}check ${pad(member.check, 8)}${pad(verified, 36)}sha256 ${short(member.sha256)}  model ${member.model ?? 'unreported'}`,
    );
  }
  lines.push('attempts');
  for (const attempt of progress.attempts) {
    const spent = attempt.attempt === null ? 'no attempt' : `attempt ${attempt.attempt}`;
    const verdict = attempt.verdict
      ? `; verdict: ${attempt.verdict.refused.length === 0 ? 'accepts all' : `refuses ${attempt.verdict.refused.join(', ')}`}`
      : '';
    lines.push(
      `  ${pad(`${attempt.role} #${attempt.launch}`, 28)}${pad(spent, 12)}${pad(attempt.kind, 11)}${pad(attempt.outcome, 14)}${attempt.sha256 ? `sha256 ${short(attempt.sha256)}` : ''}${verdict}`,
    );
    if (attempt.reason) lines.push(`      why: ${attempt.reason}`);
    for (const finding of attempt.findings)
      lines.push(`      - ${finding.line !== undefined ? `line ${finding.line}: ` : ''}${finding.message} (${finding.rule})`);
    if (attempt.findingsCount > attempt.findings.length) lines.push(`      … ${attempt.findingsCount - attempt.findings.length} more findings`);
    const cost =
      attempt.costUsd === undefined
        ? ''
        : `  cost ${attempt.costUsd === null ? 'unknown' : usd(attempt.costUsd)}${attempt.tokens ? ` (${attempt.tokens.input} in, ${attempt.tokens.output} out)` : ''}`;
    lines.push(`      launch ${attempt.launchId}  dir ${attempt.dir}${cost}`);
  }
  if (progress.checks.length > 0) {
    lines.push('report checks and re-checks');
    const rounds = [...new Set(progress.checks.map((check) => check.round))];
    for (const round of rounds) {
      const inRound = progress.checks.filter((check) => check.round === round);
      const failed = inRound.filter((check) => !check.passed);
      lines.push(
        `  ${inRound[0]?.kind} round ${round}: ${inRound.length - failed.length} passed${failed.length > 0 ? `, failed: ${failed.map((check) => check.role).join(', ')}` : ''}`,
      );
    }
  }
  if (progress.inFlight.length > 0) lines.push(`in flight: ${progress.inFlight.map((launch) => `${launch.launchId} since ${launch.since}`).join(', ')}`);
  return lines.join('\n');
}
