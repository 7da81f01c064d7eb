/**
 * Loads a plan file: YAML through zod, then everything zod cannot see — the layout it names, the
 * roles the workflow needs, what each role reads, registered checks and feedback, the files it
 * points at, and every prompt it can produce rendered once, so an unknown placeholder fails here
 * and never at launch time. Every problem is collected and reported on one line each, with the
 * file, the line and the key path. Node side: the workflow receives the loaded `Plan`.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import YAML, { LineCounter } from 'yaml';
import { sha256 } from '../fs/digest.js';
import { keyLines } from '../kb/yaml-lines.js';
import type { z } from 'zod';
import { parseLayout } from '../kb/layouts.js';
import { resolveKbPath } from '../kb/type-registry.js';
import { DECLARED_CHECKS, FEEDBACK } from './checks.js';
import { FIXED_LINES, inputLine, jobLines, variantsOf, type JobValues } from './job.js';
import { planFileSchema, type Plan, type PlanFile, type PlanRole, type PlanText } from './plan.js';
import { LINE_NAME, renderSection, sectionNames } from './prompt.js';
import { RECONCILIATION, VERIFIERS, WORKFLOW_ROLES, writtenBefore } from './roles.js';

export interface PlanProblem {
  /** Repository-relative file the problem is in. */
  readonly file: string;
  readonly line?: number;
  /** Key path in the plan (`roles.runtime-report.reads.0`), when the problem is in the plan file. */
  readonly key?: string;
  readonly message: string;
}

export class PlanError extends Error {
  override name = 'PlanError';
  constructor(
    readonly file: string,
    readonly problems: readonly PlanProblem[],
  ) {
    super(`plan ${file} is invalid:\n${problems.map((problem) => `  ${formatPlanProblem(problem)}`).join('\n')}`);
  }
}

/** One line: `file:line: key.path: message`. */
export function formatPlanProblem(problem: PlanProblem): string {
  return `${problem.file}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.key !== undefined && problem.key !== '' ? `${problem.key}: ` : ''}${problem.message}`;
}

/** Values that stand in for run values when every prompt is rendered at load. */
const sampleValues: JobValues = { run: 'AAS-2000-01-01-sample-01', system: 'sample', source: 'bundle:sha256:0', capture: '/capture', command: 'commonplace' };

/** What the loading steps share: the plan's file and KB checkout, and the problems found so far. */
interface Loading {
  readonly root: string;
  readonly file: string;
  readonly problems: PlanProblem[];
  /** Records a problem at a key path of the plan file. */
  readonly at: (segments: readonly PropertyKey[], message: string) => void;
}

/** Loads and checks a plan; `planPath` is repository-relative or absolute inside `repoRoot`. Throws PlanError with every problem. */
export async function loadPlan(repoRoot: string, planPath: string): Promise<Plan> {
  const { loading, source, value } = await readPlanFile(repoRoot, planPath);
  const { file, problems, at } = loading;
  const layout = await loadLayout(loading, value.layout);
  checkRoleNames(loading, value, layout);
  // Criteria groups: every file exists.
  const criteria: Record<string, string[]> = {};
  for (const [group, files] of Object.entries(value.criteria)) {
    criteria[group] = [];
    for (const [index, written] of files.entries()) {
      const resolved = resolveKbPath(written, file, loading.root);
      if (!resolved.ok) at(['criteria', group, index], resolved.reason);
      else if (!(await isFile(resolved.absolute))) at(['criteria', group, index], `${resolved.path}: no such file`);
      else criteria[group]?.push(resolved.path);
    }
  }
  const section = await readText(loading, ['prompt-section'], value['prompt-section']);
  for (const name of Object.keys(value.parameters)) {
    if ((FIXED_LINES as readonly string[]).includes(name) || name.startsWith('input-')) {
      at(['parameters', name], `\`${name}\` is a line the workflow prints itself; choose another parameter name`);
    }
  }
  const roles = await loadRoles(loading, value, layout, criteria);
  if (problems.length > 0 || layout === undefined || section === undefined) throw new PlanError(file, problems);
  const plan: Plan = {
    file,
    sha256: sha256(source),
    name: value.plan,
    description: value.description,
    layout,
    frozenSource: value['frozen-source'],
    section,
    parameters: value.parameters,
    criteria,
    roles,
  };
  checkSection(plan, problems);
  if (problems.length > 0) throw new PlanError(file, problems);
  return plan;
}

/** The plan file read and parsed: its YAML, its keys hyphenated, its shape by zod; any problem here stops the load. */
async function readPlanFile(repoRoot: string, planPath: string): Promise<{ loading: Loading; source: string; value: PlanFile }> {
  const root = path.resolve(repoRoot);
  const absolute = path.resolve(root, planPath);
  const file = path.relative(root, absolute).split(path.sep).join('/');
  if (file.startsWith('../') || path.isAbsolute(file)) {
    throw new PlanError(planPath, [{ file: planPath, message: `the plan must be inside the KB checkout ${root}, so the run's worktree pins it` }]);
  }
  const problems: PlanProblem[] = [];
  const source = await readFile(absolute, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new PlanError(file, [{ file, message: error.code === 'ENOENT' ? 'no such plan file' : `cannot be read: ${error.message}` }]);
  });
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const error of doc.errors)
      problems.push({ file, line: lineCounter.linePos(error.pos[0]).line, message: `malformed YAML: ${error.message.split('\n')[0] ?? ''}` });
    throw new PlanError(file, problems);
  }
  const { lines, lineAt } = keyLines(doc, lineCounter);
  const at = (segments: readonly PropertyKey[], message: string): void => {
    const line = lineAt(segments);
    problems.push({ file, ...(line !== undefined && { line }), key: segments.map(String).join('.'), message });
  };

  // Keys are hyphenated: an underscore anywhere is refused with its key path, before the schema speaks.
  for (const [key, line] of lines) {
    const last = key.split('.').pop() ?? '';
    if (last.includes('_') && !/^\d+$/.test(last))
      problems.push({ file, line, key, message: `\`${last}\` has an underscore: plan keys are hyphenated (write \`${last.replace(/_/g, '-')}\`)` });
  }
  if (problems.length > 0) throw new PlanError(file, problems);

  const parsed = planFileSchema.safeParse(doc.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) at(issue.path, issueMessage(issue));
    throw new PlanError(file, problems);
  }
  return { loading: { root, file, problems, at }, source, value: parsed.data };
}

/** The layout the plan names, read and parsed, with a destination to publish to. */
async function loadLayout({ root, file, problems, at }: Loading, written: string): Promise<Plan['layout'] | undefined> {
  const layoutPath = resolveKbPath(written, file, root);
  if (!layoutPath.ok) return void at(['layout'], layoutPath.reason);
  const text = await readFile(layoutPath.absolute, 'utf8').catch(() => undefined);
  if (text === undefined) return void at(['layout'], `${layoutPath.path}: no such layout file`);
  const loaded = parseLayout(text, layoutPath.path, root);
  if (!loaded.ok) {
    for (const problem of loaded.problems)
      problems.push({ file: layoutPath.path, ...(problem.line !== undefined && { line: problem.line }), message: problem.message });
    return undefined;
  }
  if (loaded.layout.destination === undefined) {
    const message = 'the layout declares no destination: an analysis publishes its artifact there (e.g. `destination: kb/agentic-systems/{system}/{run}`)';
    problems.push({ file: layoutPath.path, message });
  }
  return { ...loaded.layout, sha256: sha256(text) };
}

/** The roles the workflow needs, each declared once by the plan and by the layout, each verifying what the workflow asks it to. */
function checkRoleNames({ problems, at }: Loading, value: PlanFile, layout: Plan['layout'] | undefined): void {
  const declared = Object.keys(value.roles);
  const asked = WORKFLOW_ROLES.join(', ');
  for (const role of WORKFLOW_ROLES) if (!declared.includes(role)) at(['roles'], `missing role ${role}: the workflow asks ${asked}`);
  for (const role of declared) if (!WORKFLOW_ROLES.includes(role)) at(['roles', role], `the workflow asks no role ${role} (it asks ${asked})`);
  if (layout !== undefined) {
    const inLayout = (message: string) => problems.push({ file: layout.file, message });
    const layoutRoles = layout.roles.map((role) => role.name);
    for (const role of WORKFLOW_ROLES) if (!layoutRoles.includes(role)) inLayout(`the layout declares no role ${role}, which the workflow asks`);
    for (const role of layoutRoles) if (!WORKFLOW_ROLES.includes(role)) inLayout(`role ${role} is not one the workflow asks (${asked})`);
    for (const role of layout.roles) {
      const allowed = VERIFIERS[role.name];
      const where = `roles.${role.name}.verifies: ${role.name}`;
      if (allowed === undefined) {
        if (role.verifies.length > 0) inLayout(`${where} is not a verifying role of the workflow (those are ${Object.keys(VERIFIERS).join(', ')})`);
        continue;
      }
      if (role.verifies.length === 0)
        inLayout(`roles.${role.name}.verifies: the workflow asks ${role.name} to verify ${allowed.join(' or ')}, but it verifies nothing`);
      for (const subject of role.verifies) if (!allowed.includes(subject)) inLayout(`${where} may verify only ${allowed.join(', ')}, not ${subject}`);
    }
  }
  if (!declared.includes(value['frozen-source'])) at(['frozen-source'], `names unknown role ${value['frozen-source']} (roles: ${declared.join(', ')})`);
}

/** A text the plan points at, with its digest. */
async function readText({ root, file, at }: Loading, key: (string | number)[], written: string): Promise<PlanText | undefined> {
  const resolved = resolveKbPath(written, file, root);
  if (!resolved.ok) return void at(key, resolved.reason);
  const text = await readFile(resolved.absolute, 'utf8').catch(() => undefined);
  if (text === undefined) return void at(key, `${resolved.path}: no such file`);
  return { file: resolved.path, text, sha256: sha256(text) };
}

/** Each role the plan declares: what it reads, its registered checks and feedback, its criteria, its instruction, and the layout's part of it. */
async function loadRoles(
  loading: Loading,
  value: PlanFile,
  layout: Plan['layout'] | undefined,
  criteria: Record<string, string[]>,
): Promise<Record<string, PlanRole>> {
  const { at } = loading;
  const declared = Object.keys(value.roles);
  const roles: Record<string, PlanRole> = {};
  for (const [name, entry] of Object.entries(value.roles)) {
    const key = ['roles', name];
    const layoutRole = layout?.roles.find((role) => role.name === name);
    entry.reads.forEach((read, index) => {
      if (!declared.includes(read)) at([...key, 'reads', index], `names unknown role ${read} (roles: ${declared.join(', ')})`);
      else if (!writtenBefore(read, name))
        at([...key, 'reads', index], `${read} is not written before ${name}; a role reads only roles written before it (the lenses not each other)`);
    });
    entry.checks.forEach((check, index) => {
      if (DECLARED_CHECKS[check] === undefined)
        at([...key, 'checks', index], `unknown check \`${check}\` (registered checks: ${Object.keys(DECLARED_CHECKS).join(', ')})`);
    });
    entry.feedback.forEach((feedback, index) => {
      if (FEEDBACK[feedback] === undefined)
        at([...key, 'feedback', index], `unknown feedback \`${feedback}\` (registered feedback: ${Object.keys(FEEDBACK).join(', ')})`);
    });
    entry.criteria.forEach((group, index) => {
      if (value.criteria[group] === undefined)
        at([...key, 'criteria', index], `names unknown criteria group ${group} (groups: ${Object.keys(value.criteria).join(', ') || 'none'})`);
    });
    const instruction = await readText(loading, [...key, 'instruction'], entry.instruction);
    if (layoutRole === undefined || instruction === undefined) continue;
    const handed = WORKFLOW_ROLES.filter((role) => entry.reads.includes(role) || layoutRole.verifies.includes(role));
    const typeOf = (role: string) => layout?.roles.find((candidate) => candidate.name === role)?.type;
    const criteriaFiles = [
      ...new Set([
        ...entry.criteria.flatMap((group) => criteria[group] ?? []),
        ...handed.map(typeOf).filter((type): type is string => type !== undefined && type !== layoutRole.type),
      ]),
    ];
    roles[name] = {
      name,
      description: entry.description,
      instruction,
      outputs: entry.outputs ?? [`${name}.md`],
      reads: handed,
      attempts: entry.attempts,
      criteria: entry.criteria,
      criteriaFiles,
      checks: entry.checks,
      feedback: entry.feedback,
      path: layoutRole.path,
      type: layoutRole.type,
      cites: layoutRole.cites,
      identity: layoutRole.identity,
      verifies: layoutRole.verifies,
    };
  }
  return roles;
}

/** Renders every prompt the plan can produce (each role, each variant) once; a placeholder or marker without its line is a problem. */
function checkSection(plan: Plan, problems: PlanProblem[]): void {
  const refusable = new Set(Object.values(plan.roles).flatMap((role) => role.verifies));
  const known = new Set<string>();
  const renders: { role: string; label: string; lines: ReturnType<typeof jobLines> }[] = [];
  for (const role of Object.values(plan.roles)) {
    const freshAsked = role.name === RECONCILIATION || role.verifies.length > 0;
    for (const { label, variant } of variantsOf(refusable.has(role.name), freshAsked)) {
      const lines = jobLines(plan, role, sampleValues, variant);
      for (const line of lines) known.add(line.name);
      renders.push({ role: role.name, label, lines });
    }
  }
  for (const role of Object.keys(plan.roles)) known.add(inputLine(role));
  const unknown = new Set<string>();
  for (const name of sectionNames(plan.section.text)) {
    if (!LINE_NAME.test(name.name) || known.has(name.name) || unknown.has(`${name.name}:${name.line}`)) continue;
    unknown.add(`${name.name}:${name.line}`);
    problems.push({
      file: plan.section.file,
      line: name.line,
      message: `unknown ${name.kind === 'marker' ? `paragraph marker [${name.name}]` : `placeholder {${name.name}}`}: no prompt has a line ${name.name} (lines are ${[...known].filter((line) => !line.startsWith('input-')).join(', ')}, input-<role>)`,
    });
  }
  if (unknown.size > 0) return;
  const missing = new Map<string, { name: string; line: number; roles: Map<string, string> }>();
  for (const render of renders) {
    const rendered = renderSection(plan.section.text, render.lines);
    if (rendered.ok) continue;
    for (const placeholder of rendered.missing) {
      const id = `${placeholder.name}:${placeholder.line}`;
      const entry = missing.get(id) ?? { name: placeholder.name, line: placeholder.line, roles: new Map<string, string>() };
      if (!entry.roles.has(render.role)) entry.roles.set(render.role, render.label);
      missing.set(id, entry);
    }
  }
  for (const entry of missing.values()) {
    const where = [...entry.roles].map(([role, label]) => `${role} (${label})`);
    problems.push({
      file: plan.section.file,
      line: entry.line,
      message: `{${entry.name}} has no line in the prompt of ${where.slice(0, 3).join(', ')}${where.length > 3 ? ` and ${where.length - 3} more roles` : ''}; mark its paragraph [${entry.name}] so it is kept only where the line is`,
    });
  }
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_key') return 'names must be lowercase words joined by hyphens (no underscores)';
  return issue.message;
}
