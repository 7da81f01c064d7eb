/**
 * The candidate check: a candidate is validated in its role (role-scoped draft validation, the same
 * code `commonplace validate --artifact --role` runs) against the accepted members as they stood
 * when its round began, plus its role's declared checks and, for the frozen-source role, its
 * binding to the frozen source. The snapshot is rebuilt from the store, so what the check saw is
 * exactly the digests the workflow handed it, whatever the working artifact holds meanwhile.
 */
import { checkoutChangesSince } from './checkout-guard.js';
import { outputText } from '../../review/output-bounds.js';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { validateDraft } from '../../kb/draft.js';
import type { Finding } from '../../kb/findings.js';
import type { Disposition, Layout, LayoutRole } from '../../kb/layouts.js';
import { parseNote } from '../../kb/notes.js';
import type { TypeRegistry } from '../../kb/type-registry.js';
import { parseVerdict } from '../../kb/verification.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { DECLARED_CHECKS } from '../../analysis/checks.js';
import { FINDINGS_FILE, LAUNCH_ARTIFACT, REFUSAL_FILE } from '../../analysis/job.js';
import type { RunParameters } from '../../analysis/parameters.js';
import type { FindingRecord } from '../../analysis/progress.js';
import { artifactDir, checkDir, parametersFile } from '../../analysis/run-dir.js';
import { dirtyPaths } from './git.js';
import { sha256 } from '../../fs/digest.js';
import { get, getText, put } from '../../fs/store.js';
import type { CheckInput, CheckOutcome } from './types.js';

/** How many findings a check outcome carries into the history; the full list is in the store. */
export const FINDINGS_IN_HISTORY = 20;

/** Renders findings for a worker: one line each, with where and which rule. */
export function formatFindings(role: string, file: string, findings: readonly FindingRecord[]): string {
  const lines = findings.map(
    (finding) =>
      `- ${finding.line !== undefined ? `line ${finding.line}: ` : ''}${finding.message} (${finding.rule}${finding.severity === 'warn' ? ', a warning' : ''})`,
  );
  return `# Findings on ${file} (role ${role})\n\n${lines.join('\n')}\n`;
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

function record(finding: Pick<Finding, 'rule' | 'message' | 'severity' | 'line'>): FindingRecord {
  return { rule: finding.rule, message: finding.message, severity: finding.severity, ...(finding.line !== undefined && { line: finding.line }) };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

export interface CheckContext {
  layout: Layout;
  registry: TypeRegistry;
  parameters: RunParameters;
}

/** Runs one candidate's check and, when it passes and is asked to, installs it as the role's member. */
export async function runCheck(input: CheckInput, context: CheckContext): Promise<CheckOutcome> {
  const { runDir, role } = input;
  const { layout } = context;
  const layoutRole = layout.roles.find((entry) => entry.name === role);
  if (layoutRole === undefined) throw new Error(`layout ${layout.file} has no role ${role}`);
  const dir = checkDir(runDir, role, input.checkId);
  await rm(dir, { recursive: true, force: true });
  const { bytes, extraFiles, findings } = await readCandidate(input);
  const digest = await put(runDir, bytes);
  const bounds = outputText(bytes, { file: input.candidate.kind === 'output' ? input.candidate.output : role });
  if (!bounds.ok) findings.push(...bounds.findings.map((finding) => ({ rule: finding.rule, severity: 'fail' as const, message: finding.message })));
  const text = bounds.ok ? bounds.text : bytes.toString('utf8');
  findings.push(...(await validateInRole(input, context, layoutRole, dir, bytes)));

  const incumbent = input.incumbent !== undefined && input.incumbent !== digest ? await getText(runDir, input.incumbent) : undefined;
  for (const name of input.checks) {
    const check = DECLARED_CHECKS[name];
    if (check === undefined) throw new Error(`no declared check ${name}`);
    for (const finding of check({ role, text, incumbent, recordId: layout.recordId })) findings.push({ severity: 'fail', ...finding });
  }
  if (input.refused?.includes(digest)) {
    const message = `these are the exact bytes a verifier refused (sha256 ${digest.slice(0, 12)}): a correction must change what the blockers name`;
    findings.push({ rule: 'unchanged-correction', severity: 'fail', message });
  }
  const parsed = parseNote(bytes, layoutRole.path);
  const frontmatter = parsed.kind === 'note' ? parsed.note.model.frontmatter : {};
  const stated = frontmatter['source'];
  if (input.frozenSource !== undefined && stated !== input.frozenSource) {
    const found = stated === undefined ? 'nothing' : JSON.stringify(stated);
    findings.push({
      rule: 'frozen-source',
      severity: 'fail',
      message: `\`source\` must name the frozen source exactly, ${input.frozenSource}; found ${found}`,
    });
  }
  let verdict: CheckOutcome['verdict'];
  if (layoutRole.verifies.length > 0 && parsed.kind === 'note') {
    const result = parseVerdict(parsed.note.model.body, {
      subjects: layoutRole.verifies,
      roles: layout.roles.map((entry) => entry.name),
      firstLine: parsed.note.bodyLine,
    });
    if (result.ok) {
      const { accepted, refused, blockers, limits } = result.verdict;
      const clipped = Object.fromEntries(Object.entries(blockers).map(([subject, list]) => [subject, list.map((blocker) => clip(blocker, 300))]));
      verdict = { accepted: [...accepted], refused: [...refused], blockers: clipped, limits: limits.length };
    }
  }
  const field = layout.disposition?.role === role ? frontmatter[layout.disposition.field] : undefined;
  const disposition = typeof field === 'string' ? (field as Disposition) : undefined;

  const failed = findings.filter((finding) => finding.severity === 'fail');
  const passed = failed.length === 0 && (layoutRole.verifies.length === 0 || verdict !== undefined);
  let findingsSha256: string | undefined;
  if (findings.length > 0) {
    const findingsText = formatFindings(role, input.candidate.kind === 'output' ? input.candidate.output : layoutRole.path, findings);
    findingsSha256 = await put(runDir, findingsText);
    await writeFileAtomic(path.join(dir, 'findings.md'), findingsText);
  }
  const strays = input.candidate.kind === 'output' ? await dirtyPaths(input.worktree) : [];
  const baseline = input.checkoutBaseline;
  const checkoutChanges = baseline !== undefined ? await checkoutChangesSince(runDir, baseline.checkout, baseline.file) : [];
  const outcome: CheckOutcome = {
    sha256: digest,
    size: bytes.length,
    passed,
    findings: [...failed, ...findings.filter((finding) => finding.severity !== 'fail')]
      .slice(0, FINDINGS_IN_HISTORY)
      .map((finding) => ({ ...finding, message: clip(finding.message, 400) })),
    findingsCount: findings.length,
    ...(findingsSha256 !== undefined && { findingsSha256 }),
    ...(verdict !== undefined && { verdict }),
    ...(disposition !== undefined && { disposition }),
    strays,
    ...(checkoutChanges.length > 0 && { checkoutChanges }),
    extraFiles,
    dir,
  };
  const recorded = { role, candidate: input.candidate, snapshot: input.snapshot, checks: input.checks, ...outcome };
  await writeFileAtomic(path.join(dir, 'check.json'), `${JSON.stringify(recorded, null, 2)}\n`);
  if (passed && input.install) await writeFileAtomic(path.join(artifactDir(runDir), ...layoutRole.path.split('/')), bytes);
  return outcome;
}

/** The candidate's bytes, from a launch's output (which must be what the launch reported) or from the store; and what else the launch wrote. */
async function readCandidate(input: CheckInput): Promise<{ bytes: Buffer; extraFiles: string[]; findings: FindingRecord[] }> {
  const { candidate } = input;
  if (candidate.kind !== 'output') return { bytes: await get(input.runDir, candidate.sha256), extraFiles: [], findings: [] };
  const bytes = await readFile(path.join(candidate.dir, candidate.output));
  const findings: FindingRecord[] = [];
  if (sha256(bytes) !== candidate.sha256) {
    const message = `${candidate.output} changed after the launch reported it (sha256 ${candidate.sha256.slice(0, 12)}); only what the launch wrote is checked`;
    findings.push({ rule: 'output-changed', severity: 'fail', message });
  }
  const known = new Set(['prompt.md', 'parameters.json', FINDINGS_FILE, REFUSAL_FILE, candidate.output]);
  const launched = (file: string) => known.has(file) || file.startsWith(`${LAUNCH_ARTIFACT}/`) || file.startsWith('.launch/');
  return { bytes, extraFiles: (await filesUnder(candidate.dir)).filter((file) => !launched(file)), findings };
}

/** Validates the candidate in its role against the snapshot the round began with, rebuilt from the store beside it. */
async function validateInRole(input: CheckInput, context: CheckContext, layoutRole: LayoutRole, dir: string, bytes: Buffer): Promise<FindingRecord[]> {
  const { runDir, role } = input;
  const snapshotDir = path.join(dir, 'artifact');
  await mkdir(snapshotDir, { recursive: true });
  for (const [other, sha] of Object.entries(input.snapshot)) {
    const entry = context.layout.roles.find((candidate) => candidate.name === other);
    if (other !== role && entry !== undefined) await writeFileAtomic(path.join(snapshotDir, ...entry.path.split('/')), await get(runDir, sha));
  }
  const draft = path.join(dir, 'candidate', path.basename(layoutRole.path));
  await writeFileAtomic(draft, bytes);
  await writeFileAtomic(path.join(dir, 'parameters.json'), await readFile(parametersFile(runDir)));
  const report = await validateDraft({
    repoRoot: input.worktree,
    draft,
    artifact: snapshotDir,
    role,
    layout: context.layout,
    registry: context.registry,
    runValues: { kind: 'found', file: parametersFile(runDir), values: context.parameters },
  });
  return report.findings.map(record);
}
