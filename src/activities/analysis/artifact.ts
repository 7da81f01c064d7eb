/** The artifact's end: assembly (every required member checked, the exact manifest written) and publication into the worktree. */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { sha256 } from '../../fs/digest.js';
import { validateArtifact } from '../../kb/artifact.js';
import { artifactDir, environmentFile, manifestFile, parametersFile } from '../../analysis/run-dir.js';
import type { FaultPoints } from '../faults.js';
import { failure, guarded } from './failures.js';
import { PublicationLockedError, publishRun } from './publish.js';
import { readParameters } from './runs.js';
import type { AssembleInput, Assembly, PublicationOutcome, PublishInput } from './types.js';
import type { AnalysisWorkerState } from './worker-state.js';

/** Every required member's current bytes must be the ones that passed their check; then the artifact is validated whole. */
export async function assemble(worker: Pick<AnalysisWorkerState, 'layoutFor' | 'registryFor'>, input: AssembleInput): Promise<Assembly> {
  return guarded(input.runDir, async () => {
    const layout = await worker.layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
    const parameters = await readParameters(input.runDir);
    const problems: string[] = [];
    const artifact = artifactDir(input.runDir);
    const byRole = new Map(input.members.map((member) => [member.role, member]));
    const files: Record<string, string> = {};
    for (const role of layout.roles) {
      const member = byRole.get(role.name);
      const file = path.join(artifact, ...role.path.split('/'));
      const bytes = await readFile(file).catch(() => undefined);
      if (member === undefined) {
        if (role.required.includes(input.disposition)) problems.push(`required member ${role.path} (role ${role.name}) has no accepted version`);
        else if (bytes !== undefined) problems.push(`${role.path} (role ${role.name}) is in the artifact but not a member of this ${input.disposition} run`);
        continue;
      }
      if (member.check !== 'passed') problems.push(`${role.path} (role ${role.name}): its current version did not pass its last check`);
      if (bytes === undefined) problems.push(`${role.path} (role ${role.name}) is missing from the artifact`);
      else if (sha256(bytes) !== member.sha256)
        problems.push(
          `${role.path} (role ${role.name}) is not the version that passed its check (sha256 ${sha256(bytes).slice(0, 12)}, checked ${member.sha256.slice(0, 12)})`,
        );
      files[role.path] = member.sha256;
    }
    if (problems.length === 0) {
      const report = await validateArtifact(artifact, {
        repoRoot: input.worktree,
        layout,
        registry: worker.registryFor(input.worktree),
        disposition: input.disposition,
        runValues: { kind: 'found', file: parametersFile(input.runDir), values: parameters },
      });
      for (const finding of report.findings)
        if (finding.severity === 'fail') problems.push(`${finding.file}${finding.line ? `:${finding.line}` : ''}: ${finding.message}`);
    }
    const manifest = manifestFile(input.runDir);
    if (problems.length > 0) {
      await writeFileAtomic(
        environmentFile(input.runDir),
        `${JSON.stringify({ ok: false, problems, checkedAt: new Date().toISOString(), at: 'assembly' }, null, 2)}\n`,
      );
      return { ok: false, problems, manifest, files };
    }
    await writeFileAtomic(manifest, `${JSON.stringify({ ...input.manifest, status: 'assembled', disposition: input.disposition, files }, null, 2)}\n`);
    return { ok: true, problems: [], manifest, files };
  });
}

/**
 * Publication: copies the assembled members to the layout's destination in the worktree under
 * the checkout's lock and the run's journal, and commits them on the run branch; a conflict or an
 * outcome it cannot establish is answered, not thrown, so the workflow stops with its evidence.
 */
export async function publishArtifact(worker: Pick<AnalysisWorkerState, 'layoutFor'>, input: PublishInput, faults?: FaultPoints): Promise<PublicationOutcome> {
  return guarded(input.runDir, async () => {
    const layout = await worker.layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
    if (layout.destination === undefined) throw failure('bad-plan', `the layout ${layout.file} declares no destination, so the artifact cannot be published`);
    const parameters = await readParameters(input.runDir);
    const context = Context.current();
    try {
      return await publishRun({
        runDir: input.runDir,
        parameters,
        layout,
        manifest: input.manifest,
        heartbeat: () => context.heartbeat(),
        ...(faults && { faults }),
      });
    } catch (error) {
      if (error instanceof PublicationLockedError) throw ApplicationFailure.create({ type: 'publication-locked', message: error.message, nonRetryable: false });
      throw error;
    }
  });
}
