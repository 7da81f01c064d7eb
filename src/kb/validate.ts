/**
 * File validation: notes by type and base checks, schemas by compiling, layouts by loading. One TypeRegistry a run
 * (a schema compiles once); one bad file never stops the others.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { KbError } from './errors.js';
import { relativeInside, toPosix } from './kb-path.js';
import { byCodePoint, compareFindings, dedupeFindings, summarize, type FileResult, type Finding, type Summary } from './findings.js';
import { BaseChecker, TypeSpecSchemas } from './base-checks.js';
import { checkLayoutSource } from './layouts.js';
import { lineOf, parseNote } from './notes.js';
import { MACHINE_LOCAL_DIRS } from './machine-local.js';
import { TypeRegistry, type RegistryStats } from './type-registry.js';
import { DEFAULT_VALIDATION_CONFIG, loadValidationConfig, VALIDATION_CONFIG_FILE, type ValidationConfig } from './validation-config.js';

/** Files above this are not read at all: a note this size is not a note, and reading it risks the run. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A calibration record's check: it belongs to the compare domain above (src/review/compare/calibration-files.ts), so the caller hands it in. */
export type CalibrationCheck = (file: string, bytes: Uint8Array, repoRoot: string) => Promise<Finding[]>;

export interface ValidateOptions {
  /** The checkout root (see `findCheckout`). */
  readonly repoRoot: string;
  /** How calibration records are checked; without it (callers that validate notes) a record is counted, its contents not checked. */
  readonly calibration?: CalibrationCheck;
  /** Share one registry across calls of a run; a fresh one is made otherwise. */
  readonly registry?: TypeRegistry;
  /** Files read and validated at once. Default 16. */
  readonly concurrency?: number;
  /** The base checks' settings; read from the KB's `kb/instructions/validation.yaml` when not given. */
  readonly config?: ValidationConfig;
}

export interface FileOptions {
  readonly repoRoot: string;
  readonly registry: TypeRegistry;
  /** The run's base checks; default: the default settings. */
  readonly baseChecks?: BaseChecker;
  /** Types whose schema cannot be used, reported once at the type spec (without it the note carries `schema-unavailable`). */
  readonly typeSpecs?: TypeSpecSchemas;
  readonly calibration?: CalibrationCheck;
}

export interface ValidationReport {
  readonly root: string;
  readonly results: readonly FileResult[];
  readonly summary: Summary;
  readonly stats: RegistryStats;
}

/** A calibration record's place: `kb/reports/calibration/<criterion file>.json`. */
const CALIBRATION_FILE = /(^|\/)kb\/reports\/calibration\/[^/]+\.json$/;

/** How a file is validated, decided by its name: schemas, layouts and calibration records are checked as such, anything else as a note. */
export function fileKindOf(file: string): 'note' | 'schema' | 'layout' | 'calibration' {
  if (CALIBRATION_FILE.test(toPosix(file))) return 'calibration';
  if (file.endsWith('.schema.yaml') || file.endsWith('.schema.yml')) return 'schema';
  if (file.endsWith('.layout.yaml') || file.endsWith('.layout.yml')) return 'layout';
  return 'note';
}

/** Whether a directory walk or glob picks the file up: the kinds a KB validates, not its images or licences. */
export function isValidatable(file: string): boolean {
  return file.endsWith('.md') || fileKindOf(file) !== 'note';
}

/** Validates repository-relative files, every finding of every file; an unusable schema is reported once, on its type spec. */
export async function validateFiles(files: readonly string[], options: ValidateOptions): Promise<ValidationReport> {
  const root = path.resolve(options.repoRoot);
  const registry = options.registry ?? new TypeRegistry(root);
  const loaded = options.config === undefined ? await loadValidationConfig(root) : { config: options.config, findings: [] };
  const baseChecks = new BaseChecker(root, loaded.config);
  const typeSpecs = new TypeSpecSchemas();
  const validated = await mapPool([...files].sort(), options.concurrency ?? 16, (file) =>
    validateFile(file, { repoRoot: root, registry, baseChecks, typeSpecs, ...(options.calibration && { calibration: options.calibration }) }),
  );
  const extra = [...loaded.findings, ...(await typeSpecs.findings(root, loaded.config.typeSpec))];
  const results = extra.length === 0 ? validated : withFindings(validated, extra);
  return { root, results, summary: summarize(results), stats: registry.stats() };
}

/** Adds run-level findings to the results of their files, adding a result for a file the run did not list. */
function withFindings(results: readonly FileResult[], findings: readonly Finding[]): FileResult[] {
  const byFile = new Map(results.map((result) => [result.file, result]));
  for (const finding of findings) {
    const known = byFile.get(finding.file);
    const kind = known?.kind ?? (finding.file === VALIDATION_CONFIG_FILE ? 'text' : 'note');
    byFile.set(finding.file, { ...known, file: finding.file, kind, findings: [...(known?.findings ?? []), finding] });
  }
  return [...byFile.values()].map((result) => ({ ...result, findings: sortFindings(result.findings) })).sort((a, b) => byCodePoint(a.file, b.file));
}

/** Validates one repository-relative file; never throws for anything wrong with the file itself. */
export async function validateFile(file: string, options: FileOptions): Promise<FileResult> {
  const absolute = path.join(options.repoRoot, ...file.split('/'));
  const kind = fileKindOf(file);
  const unreadable = (rule: string, message: string): FileResult => ({ file, kind: 'unreadable', findings: [{ file, rule, severity: 'fail', message }] });

  let bytes: Uint8Array;
  try {
    const info = await stat(absolute);
    const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);
    if (!info.isFile()) return unreadable('not-a-file', 'not a regular file');
    if (info.size > MAX_FILE_BYTES) return unreadable('too-large', `file is ${mib(info.size)} MiB, over the ${mib(MAX_FILE_BYTES)} MiB limit; it was not read`);
    bytes = await readFile(absolute);
  } catch (error) {
    return unreadable('unreadable', `cannot be read: ${(error as Error).message}`);
  }

  if (kind === 'schema') {
    const problems = await options.registry.checkSchemaFile(file);
    return { file, kind: 'schema', findings: sortFindings(problems.map((problem) => ({ file, ...problem }))) };
  }
  if (kind === 'calibration') return { file, kind: 'calibration', findings: (await options.calibration?.(file, bytes, options.repoRoot)) ?? [] };
  if (kind === 'layout') {
    const { layout, findings } = checkLayoutSource(new TextDecoder().decode(bytes), file, options.repoRoot);
    if (layout !== undefined) {
      // A layout whose member types do not resolve would fail every artifact of it: say so here.
      for (const role of layout.roles) {
        const resolution = await options.registry.loadType(role.type, role.typeWritten);
        if (!resolution.ok)
          findings.push({ file, rule: 'type-unavailable', severity: 'fail', message: `roles.${role.name}.type: ${resolution.problem.message}` });
      }
    }
    return { file, kind: 'layout', findings: sortFindings(findings) };
  }

  const parsed = parseNote(bytes, file);
  if (parsed.kind !== 'note') return { file, kind: parsed.kind, findings: sortFindings(parsed.findings) };
  const { note } = parsed;
  const findings: Finding[] = [...parsed.findings];
  const frontmatter = note.model.frontmatter;
  const resolution = 'type' in frontmatter ? await options.registry.resolve(frontmatter['type'], file) : undefined;
  if (resolution === undefined) {
    findings.push({
      file,
      line: 1,
      rule: 'type-missing',
      severity: 'fail',
      path: '/frontmatter/type',
      message: 'frontmatter has no `type:`; a note with frontmatter names its type spec, e.g. `type: kb/types/note.md`',
    });
  } else if (!resolution.ok) {
    findings.push({ file, ...resolution.problem, line: lineOf(note, '/frontmatter/type') });
  } else {
    const { type } = resolution;
    const unusable = options.typeSpecs !== undefined && type.schemaPath !== null ? await options.registry.prepare(type.typePath) : undefined;
    if (unusable?.rule === 'schema-unavailable') {
      options.typeSpecs?.record(type.typePath, unusable, file);
    } else {
      findings.push(...(await options.registry.validateModel(type, note)));
    }
  }
  const typePath = resolution?.ok ? resolution.type.typePath : undefined;
  findings.push(...(await (options.baseChecks ?? new BaseChecker(options.repoRoot, DEFAULT_VALIDATION_CONFIG)).check(note, typePath)));
  return { file, kind: 'note', ...(typePath !== undefined && { type: typePath }), findings: sortFindings(findings) };
}

/** Expands targets (files, directories, globs) into repository-relative files; none means `kb/`; a target naming nothing is an error. */
export async function collectFiles(repoRoot: string, targets: readonly string[], cwd: string): Promise<string[]> {
  const root = path.resolve(repoRoot);
  // Machine-local run state (review results, run directories) is the project's own, not the KB's.
  const local = MACHINE_LOCAL_DIRS.map((dir) => path.join(root, dir));
  const walk = (dir: string) => walkFiles(dir, local);
  const wanted = targets.length > 0 ? targets : [path.join(root, 'kb')];
  const files = new Set<string>();
  for (const target of wanted) {
    const absolute = path.resolve(cwd, target);
    const scan = picomatch.scan(target);
    if (scan.isGlob) {
      const base = path.resolve(cwd, scan.base === '' ? '.' : scan.base);
      ensureInside(root, base, target);
      const matcher = picomatch(toPosix(absolute), { dot: false });
      const matched = (await walk(base)).filter((file) => isValidatable(file) && matcher(toPosix(file)));
      if (matched.length === 0) throw new KbError('no-match', `${target} matches no note, schema or layout file`);
      for (const file of matched) files.add(relativeTo(root, file));
      continue;
    }
    ensureInside(root, absolute, target);
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) throw new KbError('path-not-found', `${target}: no such file or directory`);
    for (const file of info.isDirectory() ? (await walk(absolute)).filter(isValidatable) : [absolute]) files.add(relativeTo(root, file));
  }
  return [...files].sort();
}

function ensureInside(root: string, absolute: string, target: string): void {
  if (relativeInside(root, absolute) === undefined) {
    throw new KbError('path-outside-checkout', `${target} is outside the checkout ${root}; validate files inside it or pass --kb DIR`);
  }
}

/** Every file below `dir`, skipping hidden entries (`.git`, caches), node_modules and the `skipped` directories unless `dir` is inside one. */
async function walkFiles(dir: string, skip: readonly string[]): Promise<string[]> {
  const skipped = skip.filter((skippedDir) => relativeInside(skippedDir, dir) === undefined);
  const files: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory() && !skipped.includes(full)) pending.push(full);
      else if (entry.isFile()) files.push(full);
    }
  }
  return files;
}

function sortFindings(findings: readonly Finding[]): Finding[] {
  return dedupeFindings(findings).sort(compareFindings);
}

function relativeTo(root: string, file: string): string {
  return toPosix(path.relative(root, file));
}

/** Runs `task` over `items` with at most `limit` in flight, keeping result order. */
async function mapPool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
