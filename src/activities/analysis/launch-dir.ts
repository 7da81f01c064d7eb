/** A launch's directory: the prompt, the members it is handed from the store, and the findings or refusal the ask answers. */
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { getText } from '../../fs/store.js';
import { parseVerdict } from '../../kb/verification.js';
import { FEEDBACK } from '../../analysis/checks.js';
import { FINDINGS_FILE, LAUNCH_ARTIFACT, REFUSAL_FILE } from '../../analysis/job.js';
import { noteBody } from '../../analysis/records.js';
import { launchDir, parametersFile } from '../../analysis/run-dir.js';
import { assertedHere } from './assert-environment.js';
import { writeCheckoutSnapshot } from './checkout-guard.js';
import { guarded } from './failures.js';
import type { PreparedLaunch, PrepareLaunchInput } from './types.js';
import type { AnalysisWorkerState } from './worker-state.js';

/** The refusal a re-asked author reads: the verifier's blockers addressed to its role, and the verdict's limits. */
async function refusalText(runDir: string, role: string, refusal: NonNullable<PrepareLaunchInput['refusal']>): Promise<string> {
  const verdictText = await getText(runDir, refusal.verdictSha256);
  const parsed = parseVerdict(noteBody(verdictText), { subjects: refusal.subjects, roles: refusal.roles });
  const blockers = parsed.ok ? (parsed.verdict.blockers[role] ?? []) : [];
  const limits = parsed.ok ? parsed.verdict.limits : [];
  return [
    `# Refusal of ${role} by ${refusal.verifier}`,
    '',
    '## Blockers',
    '',
    ...blockers.map((blocker) => `- ${blocker.replace(/\n/g, '\n  ')}`),
    '',
    '## Limits',
    '',
    ...(limits.length > 0 ? limits.map((limit) => `- ${limit.replace(/\n/g, '\n  ')}`) : ['none']),
    '',
  ].join('\n');
}

/** Prepares one launch directory: the prompt, the handed members from the store, and the findings or refusal the ask answers. */
export async function prepareLaunch(worker: Pick<AnalysisWorkerState, 'asserted'>, input: PrepareLaunchInput): Promise<PreparedLaunch> {
  return guarded(input.runDir, async () => {
    await assertedHere(worker.asserted, input.runDir);
    const dir = launchDir(input.runDir, input.role, input.launch);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const cited: Record<string, string> = {};
    for (const member of input.handed) {
      const text = await getText(input.runDir, member.sha256);
      await writeFileAtomic(path.join(dir, LAUNCH_ARTIFACT, ...member.path.split('/')), text);
      if (input.cites.includes(member.role)) cited[member.role] = text;
    }
    await writeFileAtomic(path.join(dir, 'parameters.json'), await readFile(parametersFile(input.runDir)));
    const feedback = input.feedback
      .map((name) => FEEDBACK[name]?.({ role: input.role, type: input.type, recordId: input.recordId, cited }))
      .filter((text): text is string => text !== undefined && text !== '');
    const appended = feedback.length > 0 ? `\n${feedback.join('\n\n')}\n` : '';
    if (input.findingsSha256 !== undefined)
      await writeFileAtomic(path.join(dir, FINDINGS_FILE), `${(await getText(input.runDir, input.findingsSha256)).trimEnd()}\n${appended}`);
    if (input.refusal !== undefined)
      await writeFileAtomic(path.join(dir, REFUSAL_FILE), `${await refusalText(input.runDir, input.role, input.refusal)}${appended}`);
    await writeFileAtomic(path.join(dir, 'prompt.md'), input.prompt);
    if (input.checkout === undefined) return { dir };
    const checkoutBaseline = await writeCheckoutSnapshot(input.runDir, input.checkout, `${input.role}-${input.launch}`);
    return { dir, checkoutBaseline };
  });
}
