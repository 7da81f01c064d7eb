import type { PublicationOutcome } from '../../activities/analysis/types.js';
import type { Manifest, ManifestStatus } from '../../analysis/manifest.js';
import type { AnalysisResult } from '../../analysis/progress.js';
import type { Disposition } from '../../kb/layouts.js';
import { badRun, io, permanent, type AnalysisRun } from './run.js';

/** Assembly: every required member's current bytes passed their check; then the exact manifest, and publication. */
export async function assemble(run: AnalysisRun, final: Disposition): Promise<AnalysisResult> {
  const { input, plan } = run;
  run.disposition = final;
  run.enter('assembly');
  for (const [role, member] of Object.entries(run.members)) {
    if (member.check !== 'passed') throw badRun('bad-run', `assembly reached with ${role} failing its check`);
  }
  for (;;) {
    const fixed = run.manifest('assembled');
    const assembly = await run.withStops(() =>
      io('assemble the artifact').assemble({
        runDir: input.runDir,
        worktree: input.worktree,
        layoutFile: plan.layout.file,
        layoutSha256: plan.layout.sha256,
        disposition: final,
        members: Object.values(run.members),
        manifest: fixed,
      }),
    );
    if (assembly.ok) {
      run.manifestPath = assembly.manifest;
      let recorded: { state: ManifestStatus; manifest: Manifest } = { state: 'assembled', manifest: fixed };
      if (final === 'published') {
        const published = await publish(run, fixed);
        run.publication = published.publication;
        recorded = { state: 'published', manifest: published.manifest };
      }
      const stage = final === 'published' ? (run.publication ? 'published' : 'assembled') : `ended ${final}, kept local`;
      run.lifecycle.complete(final === 'blocked' ? 'blocked' : 'completed', stage);
      await run.record(recorded.state, recorded.manifest);
      return {
        runId: input.runId,
        disposition: final,
        status: final === 'blocked' ? 'blocked' : 'completed',
        manifest: assembly.manifest,
        files: assembly.files,
        ...(run.publication !== undefined && { publication: run.publication }),
        progress: run.lifecycle.progress(),
      };
    }
    const more = assembly.problems.length > 1 ? ` (and ${assembly.problems.length - 1} more)` : '';
    await run.lifecycle.halt({
      kind: 'environment-changed',
      disposition: 'inspect',
      reason: `assembly refused the artifact: ${assembly.problems[0]}${more}`,
      evidence: `${input.runDir}/environment.json`,
    });
  }
}

/** An outcome the journal cannot establish stops the run with the journal as evidence, never retried blind; a resume publishes again. */
async function publish(run: AnalysisRun, fixed: Manifest): Promise<Extract<PublicationOutcome, { status: 'published' }>> {
  const { input, plan } = run;
  run.enter('publication');
  for (;;) {
    const outcome = await run.withStops(() =>
      io('publish the artifact', {
        startToCloseTimeout: '10m',
        heartbeatTimeout: '30s',
        retry: { maximumAttempts: 5, initialInterval: '5s', nonRetryableErrorTypes: permanent },
      }).publishArtifact({
        runDir: input.runDir,
        worktree: input.worktree,
        layoutFile: plan.layout.file,
        layoutSha256: plan.layout.sha256,
        manifest: fixed,
      }),
    );
    if (outcome.status === 'published') return outcome;
    run.publishing = outcome.destination;
    if (outcome.status === 'conflict') {
      await run.lifecycle.halt({
        kind: 'conflict',
        disposition: 'operator',
        reason: `publication refused: ${outcome.reason}; nothing was written — clear the destination and resume`,
        evidence: outcome.evidence,
      });
    } else {
      await run.lifecycle.halt({
        kind: 'publication-uncertain',
        disposition: 'inspect',
        reason: `publication cannot tell what an earlier try did: ${outcome.reason}; read the journal and the destination before resuming`,
        evidence: outcome.journal,
      });
    }
  }
}

/** The result of a run a stop ended: the stop kept in the result and in run.json. */
export async function ended(run: AnalysisRun, stop: AnalysisResult['stop'] & object): Promise<AnalysisResult> {
  await run.record('exhausted');
  return { runId: run.input.runId, status: 'exhausted', stop, progress: run.lifecycle.progress() };
}
