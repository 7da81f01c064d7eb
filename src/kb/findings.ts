/**
 * Findings: what any check says about a file (validation, review, edit, analysis), one type for all; formatting is apart
 * (`format.ts`), so the CLI, the workflow checks and a worker's self-check read the same records. Pure.
 */

/** `fail` blocks (exit 1, a refused candidate); `warn` is reported and does not. */
export type Severity = 'fail' | 'warn';

export interface Finding {
  /** The file the finding is about, as reported (repository-relative where possible). */
  readonly file: string;
  /** 1-based line in `file`, when the producer knows it. */
  readonly line?: number;
  /** A stable rule identifier, e.g. `yaml`, `type-unresolved`, `schema/minLength`, `cites`. */
  readonly rule: string;
  /** The JSON Schema keyword, for findings produced by a schema. */
  readonly keyword?: string;
  /** JSON Pointer into the document model (`/frontmatter/description`), for schema findings. */
  readonly path?: string;
  readonly message: string;
  readonly severity: Severity;
  /** Where the rule is written: `kb/types/note-base.schema.yaml#/properties/...`. */
  readonly schema?: string;
  /** The artifact role the finding belongs to (artifact and draft validation only). */
  readonly role?: string;
  /** Marks a finding caused by a required member that is not there (yet). */
  readonly absent?: boolean;
  /** The review criterion (gate ID) the finding is about, for review checks: a refused section is re-asked by it. */
  readonly criterion?: string;
}

/** What kind of file a result is about; `text` files carry nothing to validate, `absent` is an artifact member that is not there. */
export type FileKind = 'note' | 'text' | 'schema' | 'layout' | 'manifest' | 'calibration' | 'unreadable' | 'absent';

export interface FileResult {
  readonly file: string;
  readonly kind: FileKind;
  /** The note's resolved type path (repository-relative), when it has one. */
  readonly type?: string;
  readonly findings: readonly Finding[];
}

export interface Summary {
  readonly files: number;
  readonly notes: number;
  readonly text: number;
  readonly schemas: number;
  readonly layouts: number;
  /** Published artifacts' manifests (checked against their files). */
  readonly manifests: number;
  /** Calibration records (`kb/reports/calibration/*.json`, docs/review-compare.md). */
  readonly calibrations: number;
  readonly unreadable: number;
  readonly absent: number;
  readonly failures: number;
  readonly warnings: number;
  /** Files with at least one failure. */
  readonly failedFiles: number;
}

/** Counts failures and warnings so every surface reports the same totals. */
export function summarize(results: readonly FileResult[]): Summary {
  const count = (kind: FileKind) => results.filter((result) => result.kind === kind).length;
  const findings = results.flatMap((result) => result.findings);
  const failures = findings.filter((finding) => finding.severity === 'fail').length;
  return {
    files: results.length,
    notes: count('note'),
    text: count('text'),
    schemas: count('schema'),
    layouts: count('layout'),
    manifests: count('manifest'),
    calibrations: count('calibration'),
    unreadable: count('unreadable'),
    absent: count('absent'),
    failures,
    warnings: findings.length - failures,
    failedFiles: results.filter((result) => hasFailures(result.findings)).length,
  };
}

/** True when any finding blocks, the one question exit codes and checks ask. */
export function hasFailures(findings: readonly Finding[]): boolean {
  return findings.some((finding) => finding.severity === 'fail');
}

/** Orders findings by file, line, severity (failures first), rule, path, then message, so output is stable across runs. */
export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return byCodePoint(a.file, b.file);
  if ((a.line ?? 0) !== (b.line ?? 0)) return (a.line ?? 0) - (b.line ?? 0);
  if (a.severity !== b.severity) return a.severity === 'fail' ? -1 : 1;
  return byCodePoint(a.rule, b.rule) || byCodePoint(a.path ?? '', b.path ?? '') || byCodePoint(a.message, b.message);
}

/** Code-point order: the same on every host, unlike `localeCompare`. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Drops repeats (the same rule failing at the same place for the same reason), which `allOf` chains of schemas produce when several layers require the same field. */
export function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = [finding.file, finding.severity, finding.rule, finding.path ?? '', finding.role ?? '', finding.message].join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
