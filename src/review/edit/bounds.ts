/** The bounds every edit keeps (docs/review-editing.md), checked in code; each broken one is a finding the editor is re-asked with. */
import path from 'node:path';
import type { Finding } from '../../kb/findings.js';
import { parseNote, type Note } from '../../kb/notes.js';
import type { TypeRegistry } from '../../kb/type-registry.js';
import { pathExistsSync } from '../../fs/exists.js';

/** Of the edited text's length in characters over the text it edits. */
export const EDIT_SIZE_RATIO = { min: 0.5, max: 1.5 } as const;

export interface BoundsInput {
  checkout: string;
  /** Links and `type:` resolve from it. */
  note: string;
  before: string;
  after: string;
  registry: TypeRegistry;
}

function read(text: string, file: string): { note?: Note; findings: Finding[] } {
  const parsed = parseNote(new TextEncoder().encode(text), file);
  if (parsed.kind === 'note') return { note: parsed.note, findings: parsed.findings };
  return { findings: parsed.findings };
}

async function typeFindings(note: Note, registry: TypeRegistry): Promise<Finding[]> {
  const type = note.model.frontmatter['type'];
  if (type === undefined) return [];
  const resolution = await registry.resolve(type, note.file);
  if (!resolution.ok) return [{ file: note.file, ...resolution.problem }];
  return registry.validateModel(resolution.type, note);
}

const signature = (finding: Finding) => `${finding.rule}\0${finding.path ?? ''}\0${finding.message}`;

/** Undefined for a URL, an anchor or an email. */
function localTarget(target: string): string | undefined {
  if (target === '' || target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const bare = target.replace(/[?#].*$/, '');
  if (bare === '') return undefined;
  try {
    return decodeURI(bare);
  } catch {
    return bare;
  }
}

/** Frontmatter keys and type kept, no link to a missing file, length within the ratio, no failing finding the text it edits did not have. */
export async function checkEditBounds(input: BoundsInput): Promise<Finding[]> {
  const findings: Finding[] = [];
  const file = input.note;
  const fail = (rule: string, message: string, where: Pick<Finding, 'line' | 'path' | 'schema'> = {}): void => {
    findings.push({ file, ...where, rule, severity: 'fail', message });
  };
  const before = read(input.before, input.note);
  const after = read(input.after, input.note);
  if (!after.note) {
    const why = after.findings.map((finding) => finding.message).join('; ') || 'it has no frontmatter';
    const line = after.findings[0]?.line;
    return [
      {
        file,
        ...(line !== undefined && { line }),
        rule: 'edit-unreadable',
        severity: 'fail',
        message: `the edited text is not a note with readable frontmatter (${why}); write the whole note, frontmatter included`,
      },
    ];
  }
  if (before.note) {
    const keysBefore = Object.keys(before.note.model.frontmatter);
    const keysAfter = Object.keys(after.note.model.frontmatter);
    const dropped = keysBefore.filter((key) => !keysAfter.includes(key));
    const added = keysAfter.filter((key) => !keysBefore.includes(key));
    if (dropped.length > 0)
      fail(
        'edit-frontmatter-keys',
        `the edit drops frontmatter key${dropped.length > 1 ? 's' : ''} ${dropped.map((key) => `\`${key}\``).join(', ')}; keep every key`,
      );
    if (added.length > 0)
      fail(
        'edit-frontmatter-keys',
        `the edit adds frontmatter key${added.length > 1 ? 's' : ''} ${added.map((key) => `\`${key}\``).join(', ')}; an edit keeps the keys the note has`,
      );
    if (JSON.stringify(before.note.model.frontmatter['type']) !== JSON.stringify(after.note.model.frontmatter['type'])) {
      fail(
        'edit-type',
        `the edit changes \`type:\` from ${JSON.stringify(before.note.model.frontmatter['type'])} to ${JSON.stringify(after.note.model.frontmatter['type'])}; an edit keeps the note's type`,
        { path: '/frontmatter/type' },
      );
    }
  }

  const linked = new Set(before.note?.model.links ?? []);
  const folder = path.posix.dirname(input.note);
  for (const link of new Set(after.note.model.links)) {
    if (linked.has(link)) continue;
    const target = localTarget(link);
    if (target === undefined) continue;
    const resolved = target.startsWith('/') ? path.posix.normalize(target.slice(1)) : path.posix.normalize(path.posix.join(folder, target));
    if (resolved.startsWith('../') || resolved === '..' || !pathExistsSync(path.join(input.checkout, ...resolved.split('/')))) {
      fail('edit-link', `the edit adds a link to ${link}, which is not a file of the checkout (${resolved})`);
    }
  }

  const ratio = input.before.length === 0 ? Infinity : input.after.length / input.before.length;
  if (ratio < EDIT_SIZE_RATIO.min || ratio > EDIT_SIZE_RATIO.max) {
    fail(
      'edit-size',
      `the edited text is ${input.after.length} characters, ${ratio.toFixed(2)} times the ${input.before.length} it edits; an edit stays within ${EDIT_SIZE_RATIO.min}–${EDIT_SIZE_RATIO.max} times`,
    );
  }

  const had = new Set(
    [...before.findings, ...(before.note ? await typeFindings(before.note, input.registry) : [])]
      .filter((finding) => finding.severity === 'fail')
      .map(signature),
  );
  const now = [...after.findings, ...(await typeFindings(after.note, input.registry))].filter((finding) => finding.severity === 'fail');
  for (const finding of now) {
    if (had.has(signature(finding))) continue;
    fail('edit-validation', `the edited note no longer validates: ${finding.message}`, {
      ...(finding.line !== undefined && { line: finding.line }),
      ...(finding.path !== undefined && { path: finding.path }),
      ...(finding.schema !== undefined && { schema: finding.schema }),
    });
  }
  return findings;
}
