/**
 * Artifact validation: a directory typed by a layout. Every member is validated by
 * its role's type; then the layout itself: required members per disposition, and
 * the relations `cites`, `identity` and `verifies`. Every finding names the role it
 * belongs to, so draft validation can keep one role's findings and drop the rest.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareFindings, dedupeFindings, type FileResult, type Finding } from './findings.js';
import { DISPOSITIONS, type Disposition, type Layout, type LayoutRole } from './layouts.js';
import { forEachProseLine, lineOf, parseNote, type Note } from './notes.js';
import { showValue, TypeRegistry } from './type-registry.js';
import { parseVerdict } from './verification.js';

export type RunValues = Readonly<Record<string, unknown>>;

/** Run values as found for an artifact: from its `parameters.json`, or why there are none. */
export type RunValuesSource =
  | { readonly kind: 'found'; readonly file: string; readonly values: RunValues }
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly file: string; readonly reason: string };

export interface ArtifactOptions {
  readonly repoRoot: string;
  readonly layout: Layout;
  readonly registry?: TypeRegistry;
  /** The disposition to check requiredness under; otherwise the layout's declared member field, otherwise `published`. */
  readonly disposition?: Disposition;
  /** Run values for `identity`; read from `parameters.json` in or beside the artifact when omitted. */
  readonly runValues?: RunValuesSource;
  /** Names to report files under: the artifact directory, and per member path. Defaults to the real paths. */
  readonly display?: { readonly artifact?: string; readonly members?: Readonly<Record<string, string>> };
  /** Where the artifact sits in the checkout (repository-relative), for members that write a relative `type:`. */
  readonly location?: string;
}

export interface MemberReport {
  readonly role: string;
  readonly path: string;
  /** The file as reported in findings. */
  readonly file: string;
  readonly present: boolean;
  readonly required: boolean;
}

export interface ArtifactReport {
  readonly artifact: string;
  readonly layout: string;
  readonly disposition: Disposition;
  readonly dispositionSource: 'option' | 'member' | 'default';
  readonly members: readonly MemberReport[];
  /** Every finding, each with its `role`. */
  readonly findings: readonly Finding[];
  /** Findings grouped per member file, for output. */
  readonly results: readonly FileResult[];
}

interface Member {
  readonly role: LayoutRole;
  readonly file: string;
  readonly note: Note | undefined;
}

const PARAMETERS = 'parameters.json';

type Add = (role: LayoutRole, finding: Omit<Finding, 'role'>) => void;

/** Validates a whole artifact directory against its layout, collecting every member's and every relation's findings. */
export async function validateArtifact(dir: string, options: ArtifactOptions): Promise<ArtifactReport> {
  const root = path.resolve(options.repoRoot);
  const artifactDir = path.resolve(dir);
  const registry = options.registry ?? new TypeRegistry(root);
  const layout = options.layout;
  const displayArtifact = options.display?.artifact ?? displayPath(root, artifactDir);
  const location = options.location ?? repoRelative(root, artifactDir);
  const findings: Finding[] = [];
  const add: Add = (role, finding) => findings.push({ ...finding, role: role.name });
  const fileOf = (role: LayoutRole) => options.display?.members?.[role.path] ?? `${displayArtifact}/${role.path}`;

  const members = await readMembers(artifactDir, layout, fileOf, add);
  const { disposition, dispositionSource } = dispositionOf(options.disposition, layout, members, add);
  const reports = layout.roles.map((role): MemberReport => {
    const present = members.has(role.name);
    const required = role.required.includes(disposition);
    const file = fileOf(role);
    const message = `required member ${role.path} (role ${role.name}) is absent under disposition ${disposition}`;
    if (!present && required) add(role, { file, rule: 'member-absent', severity: 'fail', absent: true, message });
    return { role: role.name, path: role.path, file, present, required };
  });
  for (const member of members.values()) if (member.note !== undefined) await checkType(member, member.note, registry, location, add);

  // Relations.
  const runValues = options.runValues ?? (await readRunValues(artifactDir));
  for (const member of members.values()) {
    const { role, note } = member;
    if (note === undefined) continue;
    checkIdentity(member, note, runValues, add);
    if (role.cites.length > 0 && layout.recordId !== undefined) checkCites(member, note, layout, members, add);
    if (role.verifies.length > 0) {
      const verdict = parseVerdict(note.model.body, { subjects: role.verifies, roles: layout.roles.map((r) => r.name), firstLine: note.bodyLine });
      for (const finding of verdict.findings) add(role, { file: member.file, ...finding });
    }
  }

  const all = dedupeFindings(findings).sort(compareFindings);
  const results: FileResult[] = reports
    .filter((report) => report.present || all.some((finding) => finding.file === report.file))
    .map((report) => ({
      file: report.file,
      kind: !report.present ? 'absent' : members.get(report.role)?.note !== undefined ? 'note' : 'unreadable',
      type: layout.roles.find((r) => r.name === report.role)?.type,
      findings: all.filter((finding) => finding.file === report.file),
    }));
  return { artifact: displayArtifact, layout: layout.file, disposition, dispositionSource, members: reports, findings: all, results };
}

/** Reads and parses every member that is there. */
async function readMembers(artifactDir: string, layout: Layout, fileOf: (role: LayoutRole) => string, add: Add): Promise<Map<string, Member>> {
  const members = new Map<string, Member>();
  for (const role of layout.roles) {
    const file = fileOf(role);
    const absolute = path.join(artifactDir, ...role.path.split('/'));
    let bytes: Uint8Array;
    try {
      if (!(await stat(absolute)).isFile()) {
        add(role, { file, rule: 'member-invalid', severity: 'fail', message: `${role.path} must be a file` });
        continue;
      }
      bytes = await readFile(absolute);
    } catch {
      continue;
    }
    const parsed = parseNote(bytes, file);
    for (const finding of parsed.findings) add(role, finding);
    if (parsed.kind === 'text') {
      const message = `member of role ${role.name} has no frontmatter; it must be a note of type ${role.type}`;
      add(role, { file, line: 1, rule: 'member-untyped', severity: 'fail', message });
    }
    members.set(role.name, { role, file, note: parsed.kind === 'note' ? parsed.note : undefined });
  }
  return members;
}

/** The disposition that decides which members are required: the option's, else the layout's member field's, else `published`. */
function dispositionOf(
  option: Disposition | undefined,
  layout: Layout,
  members: ReadonlyMap<string, Member>,
  add: Add,
): Pick<ArtifactReport, 'disposition' | 'dispositionSource'> {
  if (option !== undefined) return { disposition: option, dispositionSource: 'option' };
  const holder = layout.disposition && members.get(layout.disposition.role);
  const field = layout.disposition?.field ?? '';
  const value = holder?.note?.model.frontmatter[field];
  if (holder?.note !== undefined && value !== undefined) {
    if (typeof value === 'string' && (DISPOSITIONS as readonly string[]).includes(value))
      return { disposition: value as Disposition, dispositionSource: 'member' };
    add(holder.role, {
      file: holder.file,
      line: lineOf(holder.note, `/frontmatter/${field}`),
      rule: 'disposition',
      severity: 'fail',
      path: `/frontmatter/${field}`,
      message: `\`${field}\` must be one of ${DISPOSITIONS.join(', ')}, found ${showValue(value)}`,
    });
  }
  return { disposition: 'published', dispositionSource: 'default' };
}

/** A member by its role's type: it declares that type, and its document model validates against it. */
async function checkType(member: Member, note: Note, registry: TypeRegistry, location: string | undefined, add: Add): Promise<void> {
  const { role, file } = member;
  const resolution = await registry.loadType(role.type, role.typeWritten);
  if (!resolution.ok) return add(role, { file, rule: 'type-unavailable', severity: 'fail', message: `role ${role.name}: ${resolution.problem.message}` });
  const written = note.model.frontmatter['type'];
  const typeProblem = (line: number | undefined, message: string) =>
    add(role, { file, line, rule: 'member-type', severity: 'fail', path: '/frontmatter/type', message });
  if (written === undefined) typeProblem(1, `frontmatter has no \`type:\`; role ${role.name} takes ${role.type}`);
  else {
    const own = await registry.resolve(written, location === undefined ? role.path : `${location}/${role.path}`).catch(() => undefined);
    const ownPath = own?.ok ? own.type.typePath : typeof written === 'string' ? written : showValue(written);
    if (ownPath !== role.type) typeProblem(lineOf(note, '/frontmatter/type'), `declares type ${ownPath}, but role ${role.name} takes ${role.type}`);
  }
  for (const finding of await registry.validateModel(resolution.type, note)) add(role, finding);
}

/** Reads run values from `parameters.json` in the artifact, or in the run directory above it. */
export async function readRunValues(artifactDir: string): Promise<RunValuesSource> {
  for (const candidate of [path.join(artifactDir, PARAMETERS), path.join(path.dirname(path.resolve(artifactDir)), PARAMETERS)]) {
    let source: string;
    try {
      source = await readFile(candidate, 'utf8');
    } catch {
      continue;
    }
    try {
      const values: unknown = JSON.parse(source);
      if (values === null || typeof values !== 'object' || Array.isArray(values))
        return { kind: 'invalid', file: candidate, reason: 'it must hold a JSON object' };
      return { kind: 'found', file: candidate, values: values as RunValues };
    } catch (error) {
      return { kind: 'invalid', file: candidate, reason: (error as Error).message };
    }
  }
  return { kind: 'missing' };
}

function checkIdentity(member: Member, note: Note, runValues: RunValuesSource, add: Add): void {
  const { role } = member;
  for (const [field, key] of Object.entries(role.identity)) {
    const pointer = `/frontmatter/${field}`;
    const base = { file: member.file, line: lineOf(note, pointer), rule: 'identity', severity: 'fail' as const, path: pointer };
    if (runValues.kind === 'missing') {
      add(role, { ...base, message: `cannot check identity field \`${field}\`: no ${PARAMETERS} in the artifact or its run directory` });
      continue;
    }
    if (runValues.kind === 'invalid') {
      add(role, { ...base, message: `cannot check identity field \`${field}\`: ${runValues.file} is unreadable: ${runValues.reason}` });
      continue;
    }
    const expected = runValues.values[key];
    if (expected === undefined) {
      add(role, { ...base, message: `cannot check identity field \`${field}\`: the run has no value \`${key}\` in ${PARAMETERS}` });
      continue;
    }
    const actual = note.model.frontmatter[field];
    if (actual === undefined) {
      add(role, { ...base, message: `identity field \`${field}\` is missing; it must equal the run's \`${key}\`, ${showValue(expected)}` });
    } else if (!sameValue(actual, expected)) {
      add(role, { ...base, message: `identity field \`${field}\` is ${showValue(actual)}, but the run's \`${key}\` is ${showValue(expected)}` });
    }
  }
}

interface Records {
  readonly declared: Set<string>;
  /** First body line index of each referenced ID. */
  readonly references: Map<string, number>;
}

function checkCites(member: Member, note: Note, layout: Layout, members: ReadonlyMap<string, Member>, add: Add): void {
  const pattern = layout.recordId as string;
  const own = scanRecords(note.model.body, pattern);
  const { role } = member;
  const cited = role.cites.map((name) => ({ name, member: members.get(name) }));
  const declarations = new Map<string, Records>();
  for (const other of members.values()) {
    if (other.note !== undefined && other.role.name !== role.name) declarations.set(other.role.name, scanRecords(other.note.model.body, pattern));
  }
  const absent = cited.filter((entry) => entry.member?.note === undefined).map((entry) => layout.roles.find((r) => r.name === entry.name)?.path ?? entry.name);
  const citedPaths = role.cites.map((name) => layout.roles.find((r) => r.name === name)?.path ?? name).join(', ');
  for (const [id, index] of own.references) {
    if (own.declared.has(id)) continue;
    if (role.cites.some((name) => declarations.get(name)?.declared.has(id))) continue;
    const base = { file: member.file, line: note.bodyLine + index, rule: 'cites', severity: 'fail' as const };
    const elsewhere = [...declarations].find(([, records]) => records.declared.has(id))?.[0];
    if (elsewhere !== undefined) {
      add(role, { ...base, message: `cites ${id}, declared by ${elsewhere}, which role ${role.name} may not cite (it cites ${role.cites.join(', ')})` });
    } else if (absent.length > 0) {
      add(role, { ...base, absent: true, message: `cannot resolve cited record ${id}: cited member ${absent.join(', ')} is absent` });
    } else {
      add(role, { ...base, message: `cited record ${id} does not exist in ${citedPaths}` });
    }
  }
}

/** Records a body declares (a heading or a table row that starts with the ID) and the IDs its prose mentions. */
function scanRecords(body: string, pattern: string): Records {
  const declaredHeading = new RegExp(`^ {0,3}#{1,6}[ \\t]+\\**\`?(${pattern})(?![\\w-])`, 'u');
  const declaredRow = new RegExp(`^ {0,3}\\|[ \\t]*\\**\`?(${pattern})(?![\\w-])`, 'u');
  const reference = new RegExp(`(?<![\\w-])(?:${pattern})(?![\\w-])`, 'gu');
  const declared = new Set<string>();
  const references = new Map<string, number>();
  forEachProseLine(body, (line, index) => {
    if (/^[ \t]*>/.test(line)) return; // quoted evidence is not citation
    const declaration = declaredHeading.exec(line) ?? declaredRow.exec(line);
    if (declaration?.[1] !== undefined) declared.add(declaration[1]);
    for (const match of line.matchAll(reference)) if (!references.has(match[0])) references.set(match[0], index);
  });
  return { declared, references };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function displayPath(root: string, absolute: string): string {
  return repoRelative(root, absolute) ?? absolute.split(path.sep).join('/');
}

function repoRelative(root: string, absolute: string): string | undefined {
  const relative = path.relative(root, absolute);
  if (relative === '') return '.';
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}
