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
  let failures = 0;
  let warnings = 0;
  let failedFiles = 0;
  const kinds = { note: 0, text: 0, schema: 0, layout: 0, manifest: 0, calibration: 0, unreadable: 0, absent: 0 };
  for (const result of results) {
    kinds[result.kind] += 1;
    let failed = false;
    for (const finding of result.findings) {
      if (finding.severity === 'fail') {
        failures += 1;
        failed = true;
      } else {
        warnings += 1;
      }
    }
    if (failed) failedFiles += 1;
  }
  return {
    files: results.length,
    notes: kinds.note,
    text: kinds.text,
    schemas: kinds.schema,
    layouts: kinds.layout,
    manifests: kinds.manifest,
    calibrations: kinds.calibration,
    unreadable: kinds.unreadable,
    absent: kinds.absent,
    failures,
    warnings,
    failedFiles,
  };
}

/** True when any finding blocks, the one question exit codes and checks ask. */
export function hasFailures(findings: readonly Finding[]): boolean {
  return findings.some((finding) => finding.severity === 'fail');
}

/** Orders findings by file, line, then rule, so output is stable across runs. */
export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  const lineA = a.line ?? 0;
  const lineB = b.line ?? 0;
  if (lineA !== lineB) return lineA - lineB;
  if (a.severity !== b.severity) return a.severity === 'fail' ? -1 : 1;
  if (a.rule !== b.rule) return a.rule < b.rule ? -1 : 1;
  const pathA = a.path ?? '';
  const pathB = b.path ?? '';
  if (pathA !== pathB) return pathA < pathB ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Drops repeats (the same rule failing at the same place for the same reason), which
 * `allOf` chains of schemas produce when several layers require the same field. */
export function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  const kept: Finding[] = [];
  for (const finding of findings) {
    const key = [finding.file, finding.severity, finding.rule, finding.path ?? '', finding.role ?? '', finding.message].join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(finding);
  }
  return kept;
}
