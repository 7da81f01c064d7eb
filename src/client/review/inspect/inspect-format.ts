/** `review inspect`'s rendering: the gathered record as the operator reads it. */
import path from 'node:path';
import { routingLines } from '../../../activities/review/sweep/routing.js';
import type { Finding } from '../../../kb/findings.js';
import { spendLine, tokensLine } from '../../../runs/spend.js';
import { rendered as shown } from '../../shared/render-paths.js';
import { stopLines } from '../../shared/stop-format.js';
import type { Inspected, LaunchRecord } from './inspect-record.js';
import { describeCachePrefixes } from '../../../harness/prompt-cache.js';
import { duration } from '../shared/sweep-format.js';
import { runnable } from '../../shared/command-line.js';
import { runCommand } from '../../../runs/run-commands.js';

const money = (amount: number | null) => (amount === null ? 'cost unknown' : `$${amount.toFixed(4)}`);

/** One launch as a line; its ID without the run's prefix, which every launch of the run shares. */
function launchLine(launch: LaunchRecord, runId: string): string {
  const parts: string[] = [launch.outcome];
  if (launch.durationMs !== null) parts.push(duration(launch.durationMs));
  if (launch.tokens) parts.push(tokensLine(launch.tokens));
  if (launch.outcome !== 'running' && launch.outcome !== 'failed' && launch.outcome !== 'cancelled') parts.push(money(launch.costUsd));
  if (launch.model) parts.push(`model ${launch.model}`);
  if (launch.try !== null && launch.try > 1) parts.push(`try ${launch.try}`);
  if (launch.message) parts.push(launch.message);
  const id = launch.launchId.startsWith(`${runId}/`) ? launch.launchId.slice(runId.length + 1) : launch.launchId;
  return `  ${id}: ${parts.join(' · ')}`;
}

const findingLine = (finding: Finding) =>
  `      ${finding.severity} ${finding.rule}${finding.file ? ` (${finding.file}${finding.line !== undefined ? `:${finding.line}` : ''})` : ''}: ${finding.message}`;

/** The record as the operator reads it. */
export function formatInspected(inspected: Inspected): string {
  const title = inspected.kind === 'sweep' ? `sweep ${inspected.runId}` : `${inspected.kind} ${inspected.runId} of ${inspected.edit?.note ?? '?'}`;
  const lines = [`${title}: ${inspected.status} (${inspected.readFrom})`, `  workflow       ${inspected.workflowId}`, `  run directory  ${inspected.runDir}`];
  if (inspected.stage) lines.push(`  stage          ${inspected.stage}`);
  const { sweep } = inspected;
  if (sweep) {
    const { counts } = sweep;
    lines.push(
      `  pairs          ${counts.pairsDone} of ${sweep.pairs} done (${sweep.units} units in ${sweep.batches} batch${sweep.batches === 1 ? '' : 'es'})`,
      `  results        pass ${counts.written.pass}, warn ${counts.written.warn}, fail ${counts.written.fail}, report ${counts.written.report}; ${counts.problems} problem${counts.problems === 1 ? '' : 's'}, ${counts.staleOnArrival} stale on arrival`,
    );
    if (sweep.currentBatch) {
      const batch = sweep.currentBatch.progress;
      lines.push(
        `  running batch  ${sweep.currentBatch.workflowId}${batch ? `: ${batch.status}, ${batch.counts.pairsDone} pairs done, ${batch.left} units left, ${batch.inFlight} in flight` : ' (no answer to its progress query)'}`,
      );
    }
    if (sweep.cachePrefixes) lines.push(`  prompt cache   ${describeCachePrefixes(sweep.cachePrefixes)}`);
  }
  if (inspected.routing) {
    const { profile, minKappa, reference } = inspected.routing;
    lines.push(`routing (${profile}'s calibrated-routes: κ ≥ ${minKappa} against ${reference})`, ...routingLines(inspected.routing).map((line) => `  ${line}`));
  }
  if (inspected.spend)
    lines.push(
      `  spend          ${inspected.spend.launches > 0 ? spendLine(inspected.spend) : 'nothing launched'}; tokens ${tokensLine(inspected.spend.tokens)}`,
    );
  if (inspected.stops.length > 0)
    lines.push(
      inspected.status === 'exhausted' ? 'ended by' : 'stops',
      ...inspected.stops.flatMap((stop) => stopLines(stop, '  ', inspected.kind === 'sweep' ? null : inspected.runDir)),
    );
  if (inspected.next) lines.push(`  next: ${runnable(inspected.next)}`);
  const { launches } = inspected;
  if (launches.source === 'unavailable') lines.push(`launches: not available: ${launches.why}`);
  else
    lines.push(
      `launches (${launches.records.length}, from the workflow histories; IDs under ${inspected.runId}/)`,
      ...launches.records.map((launch) => launchLine(launch, inspected.runId)),
    );
  if (inspected.kind === 'sweep') {
    lines.push(`problems (${inspected.problems.length}, from ${path.join(inspected.runDir, 'problems.jsonl')})`);
    for (const problem of inspected.problems) {
      lines.push(`  ${problem.note} × ${problem.criterion}: ${problem.reason}`);
      if (problem.findings && problem.findings.length > 0) lines.push('    findings:', ...problem.findings.map(findingLine));
    }
  } else {
    lines.push(`proposals (${inspected.proposals.length})`);
    for (const proposal of inspected.proposals) {
      lines.push(
        `  ${proposal.path}: key ${proposal.key} (decision ${proposal.stop}${proposal.waiting ? ', waiting for approval' : proposal.answered ? ', answered' : ''})`,
      );
    }
    const { packet } = inspected;
    if (packet === null) lines.push('packet: none yet (the run writes packet.md when its work is done)');
    else {
      lines.push(`packet ${packet.file}`, `  decision ${packet.decision}, closing ${packet.closing}`);
      if (packet.resolved.length > 0) lines.push(`  resolved    ${packet.resolved.join(', ')}`);
      if (packet.remaining.length > 0) lines.push(`  remaining   ${packet.remaining.join(', ')}`);
      if (packet.introduced.length > 0) lines.push(`  introduced  ${packet.introduced.join(', ')}`);
      for (const pass of packet.passes) lines.push(`  pass        ${pass}`);
      lines.push(`  whether it still describes the note: ${runnable(runCommand.packet(inspected.runId))}`);
    }
  }
  return lines.map(shown).join('\n');
}
