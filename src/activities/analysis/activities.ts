/**
 * The analysis activities: all of a run's I/O — opening, the environment assertion, acquisition,
 * launch directories, candidate checks, run records and assembly. The harness launches themselves
 * are the spine's `launch` activity.
 */
import { writeCheckoutSnapshot } from './checkout-guard.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { selectProfile } from '../../harness/profiles.js';
import { validateArtifact } from '../../kb/artifact.js';
import { KbError } from '../../kb/errors.js';
import { loadLayout, type Layout } from '../../kb/layouts.js';
import { TypeRegistry } from '../../kb/type-registry.js';
import { parseVerdict } from '../../kb/verification.js';
import { FEEDBACK } from '../../analysis/checks.js';
import { FINDINGS_FILE, LAUNCH_ARTIFACT, REFUSAL_FILE } from '../../analysis/job.js';
import { loadPlan, PlanError } from '../../analysis/load-plan.js';
import { noteBody } from '../../analysis/records.js';
import { artifactDir, environmentFile, launchDir, manifestFile, parametersFile, runRecordFile } from '../../analysis/run-dir.js';
import { packageRoot } from '../../paths.js';
import { runCheck } from './check.js';
import { checkEnvironment } from './environment.js';
import { readParameters } from './runs.js';
import { PublicationLockedError, publishRun } from './publish.js';
import { freezeSource, SourceError } from './source.js';
import { sha256 } from '../../fs/digest.js';
import { getText, StoreError } from '../../fs/store.js';
import type {
  AnalysisErrorType,
  AssembleInput,
  Assembly,
  CheckInput,
  CheckOutcome,
  EnvironmentChangedDetails,
  EnvironmentInput,
  EnvironmentOutcome,
  OpenedRun,
  OpenRunInput,
  PublicationOutcome,
  PublishInput,
  PreparedLaunch,
  PrepareLaunchInput,
  RecordRunInput,
} from './types.js';
import type { FrozenSource } from '../../analysis/progress.js';

function failure(type: AnalysisErrorType, message: string, details?: EnvironmentChangedDetails): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, ...(details && { details: [details] }) });
}

/** A store entry that is gone or altered means someone changed run state: the run stops for the operator. */
async function guarded<T>(runDir: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreError || error instanceof SourceError) {
      const evidence = error instanceof StoreError ? error.file : environmentFile(runDir);
      if (error instanceof SourceError) await writeFileAtomic(evidence, `${JSON.stringify({ ok: false, problems: [error.message], checkedAt: new Date().toISOString() }, null, 2)}\n`);
      throw failure(error instanceof SourceError && error.unavailable ? 'source-unavailable' : 'environment-changed', error.message, { problems: [error.message], evidence });
    }
    if (error instanceof KbError) throw failure('bad-plan', error.message);
    throw error;
  }
}

/** Builds the analysis activities (no dependencies beyond the filesystem; caches per worker process). */
export function createAnalysisActivities() {
  const registries = new Map<string, TypeRegistry>();
  const layouts = new Map<string, Promise<Layout>>();
  const registryFor = (worktree: string) => {
    let registry = registries.get(worktree);
    if (!registry) registries.set(worktree, (registry = new TypeRegistry(worktree)));
    return registry;
  };
  const layoutFor = (worktree: string, file: string, layoutSha256: string) => {
    const key = `${worktree}\0${file}\0${layoutSha256}`;
    let layout = layouts.get(key);
    if (!layout) {
      layout = (async () => {
        const text = await readFile(path.join(worktree, file));
        if (sha256(text) !== layoutSha256) throw failure('environment-changed', `the layout ${file} changed since the run started`, { problems: [`the layout ${file} changed`], evidence: path.join(worktree, file) });
        return loadLayout(file, worktree);
      })();
      layout.catch(() => layouts.delete(key));
      layouts.set(key, layout);
    }
    return layout;
  };

  /**
   * Runs whose environment this worker process has asserted. A worker that picks a run up mid-way (its
   * worker was replaced: killed, restarted, or another host's) asserts the environment — HEAD, a clean
   * tree, the method commit, the startup files — before its first launch or check of the run, as the run
   * did at its start and on each resume: what changed while no worker watched stops the run.
   */
  const asserted = new Set<string>();
  async function assertedHere(runDir: string): Promise<void> {
    if (asserted.has(runDir)) return;
    const parameters = await readParameters(runDir).catch((error: Error) => {
      throw failure('bad-run', error.message);
    });
    const report = await checkEnvironment(parameters, runDir);
    if (!report.ok) {
      const evidence = environmentFile(runDir);
      await writeFileAtomic(evidence, `${JSON.stringify(report, null, 2)}\n`);
      throw failure('environment-changed', `a worker picking the run up found the environment changed: ${report.problems[0] ?? 'see the evidence'}`, { problems: report.problems, evidence, what: 'a worker picking the run up found the environment changed' });
    }
    asserted.add(runDir);
  }

  /** Reads the run's parameters, loads its plan from the worktree and resolves its profile: what the workflow keeps for the run. */
  async function openAnalysis(input: OpenRunInput): Promise<OpenedRun> {
    const parameters = await readParameters(input.runDir).catch((error: Error) => {
      throw failure('bad-run', error.message);
    });
    if (path.resolve(parameters.worktree) !== path.resolve(input.worktree)) {
      throw failure('bad-run', `${input.runDir}/parameters.json belongs to the worktree ${parameters.worktree}, not ${input.worktree}`);
    }
    const plan = await loadPlan(input.worktree, parameters.plan).catch((error: Error) => {
      throw failure('bad-plan', error instanceof PlanError ? error.message : `plan ${parameters.plan}: ${error.message}`);
    });
    let profile;
    try {
      const source = profilesSource({ checkout: input.worktree, ...(input.profilesFile && { file: input.profilesFile }) });
      profile = selectProfile(loadProfiles(source), parameters.profile, source);
    } catch (error) {
      throw failure('bad-profile', (error as Error).message);
    }
    if (input.env) profile = { ...profile, env: { ...profile.env, ...input.env } };
    const command = `${process.execPath} ${path.join(packageRoot(), 'bin', 'commonplace.js')}`;
    return { parameters, plan, profile, command };
  }

  /** Asserts the run's environment; when it changed, writes what changed to environment.json, the stop's evidence. */
  async function assertEnvironment(input: EnvironmentInput): Promise<EnvironmentOutcome> {
    const parameters = await readParameters(input.runDir).catch((error: Error) => {
      throw failure('bad-run', error.message);
    });
    const report = await checkEnvironment(parameters, input.runDir, undefined, { ...(input.publishing !== undefined && { publishing: input.publishing }) });
    if (report.ok) {
      if (input.publishing === undefined) asserted.add(input.runDir);
      return { ok: true, problems: [] };
    }
    const evidence = environmentFile(input.runDir);
    await writeFileAtomic(evidence, `${JSON.stringify(report, null, 2)}\n`);
    return { ok: false, problems: report.problems, evidence };
  }

  /** Freezes the run's source into its capture directory (or checks the one frozen before). */
  async function acquireSource(input: { runDir: string }): Promise<FrozenSource> {
    const parameters = await readParameters(input.runDir);
    const context = Context.current();
    return guarded(input.runDir, () => freezeSource(parameters, input.runDir, () => context.heartbeat()));
  }

  /** Prepares one launch directory: the prompt, the handed members from the store, and the findings or refusal the ask answers. */
  async function prepareLaunch(input: PrepareLaunchInput): Promise<PreparedLaunch> {
    return guarded(input.runDir, async () => {
      await assertedHere(input.runDir);
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
      if (input.findingsSha256 !== undefined) await writeFileAtomic(path.join(dir, FINDINGS_FILE), `${(await getText(input.runDir, input.findingsSha256)).trimEnd()}\n${appended}`);
      if (input.refusal !== undefined) {
        const verdictText = await getText(input.runDir, input.refusal.verdictSha256);
        const parsed = parseVerdict(noteBody(verdictText), { subjects: input.refusal.subjects, roles: input.refusal.roles });
        const blockers = parsed.ok ? (parsed.verdict.blockers[input.role] ?? []) : [];
        const limits = parsed.ok ? parsed.verdict.limits : [];
        const text = [
          `# Refusal of ${input.role} by ${input.refusal.verifier}`,
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
        await writeFileAtomic(path.join(dir, REFUSAL_FILE), `${text}${appended}`);
      }
      await writeFileAtomic(path.join(dir, 'prompt.md'), input.prompt);
      if (input.checkout === undefined) return { dir };
      const checkoutBaseline = await writeCheckoutSnapshot(input.runDir, input.checkout, `${input.role}-${input.launch}`);
      return { dir, checkoutBaseline };
    });
  }

  /** Checks a candidate (or re-checks a member) in its role against the round's snapshot. */
  async function checkCandidate(input: CheckInput): Promise<CheckOutcome> {
    return guarded(input.runDir, async () => {
      await assertedHere(input.runDir);
      const layout = await layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
      const parameters = await readParameters(input.runDir);
      return runCheck(input, { layout, registry: registryFor(input.worktree), parameters });
    });
  }

  /** Writes the run's progress (run.json) and working manifest, each atomically, so inspect reads them without Temporal. */
  async function recordRun(input: RecordRunInput): Promise<void> {
    await writeFileAtomic(runRecordFile(input.runDir), `${JSON.stringify(input.progress, null, 2)}\n`);
    await writeFileAtomic(manifestFile(input.runDir), `${JSON.stringify(input.manifest, null, 2)}\n`);
  }

  /**
   * Assembly: asserts that every required member is there and that its current bytes are the ones
   * that passed their check, validates the artifact whole, then writes the exact manifest.
   */
  async function assemble(input: AssembleInput): Promise<Assembly> {
    return guarded(input.runDir, async () => {
      const layout = await layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
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
        else if (sha256(bytes) !== member.sha256) problems.push(`${role.path} (role ${role.name}) is not the version that passed its check (sha256 ${sha256(bytes).slice(0, 12)}, checked ${member.sha256.slice(0, 12)})`);
        files[role.path] = member.sha256;
      }
      if (problems.length === 0) {
        const report = await validateArtifact(artifact, {
          repoRoot: input.worktree,
          layout,
          registry: registryFor(input.worktree),
          disposition: input.disposition,
          runValues: { kind: 'found', file: parametersFile(input.runDir), values: parameters },
        });
        for (const finding of report.findings) if (finding.severity === 'fail') problems.push(`${finding.file}${finding.line ? `:${finding.line}` : ''}: ${finding.message}`);
      }
      const manifest = manifestFile(input.runDir);
      if (problems.length > 0) {
        await writeFileAtomic(environmentFile(input.runDir), `${JSON.stringify({ ok: false, problems, checkedAt: new Date().toISOString(), at: 'assembly' }, null, 2)}\n`);
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
  async function publishArtifact(input: PublishInput): Promise<PublicationOutcome> {
    return guarded(input.runDir, async () => {
      const layout = await layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
      if (layout.destination === undefined) throw failure('bad-plan', `the layout ${layout.file} declares no destination, so the artifact cannot be published`);
      const parameters = await readParameters(input.runDir);
      const context = Context.current();
      try {
        return await publishRun({ runDir: input.runDir, parameters, layout, manifest: input.manifest, heartbeat: () => context.heartbeat() });
      } catch (error) {
        if (error instanceof PublicationLockedError) throw ApplicationFailure.create({ type: 'publication-locked', message: error.message, nonRetryable: false });
        throw error;
      }
    });
  }

  return { openAnalysis, assertEnvironment, acquireSource, prepareLaunch, checkCandidate, recordRun, assemble, publishArtifact };
}
