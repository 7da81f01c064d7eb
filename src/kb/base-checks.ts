/** The checks a schema cannot make (links resolve, title and slug limits, an unloadable type schema once): docs/validation.md. */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { byCodePoint, type Finding, type Severity } from './findings.js';
import { extractLinkSites, forEachProseLine, lineOf, parseNote, type Note } from './notes.js';
import { resolveKbPath, type Problem } from './type-registry.js';
import type { ValidationConfig } from './validation-config.js';
import { cached } from './cached.js';

/** Files a link to a directory lands on, in the order tried. */
const DIRECTORY_LANDINGS = ['README.md', 'index.md'] as const;

type Target = 'file' | 'directory-with-landing' | 'directory' | 'missing';

/** Runs the per-note base checks of one validation run, sharing what it learns about the file system across notes. */
export class BaseChecker {
  readonly repoRoot: string;
  readonly config: ValidationConfig;
  private readonly targets = new Map<string, Promise<Target>>();

  constructor(repoRoot: string, config: ValidationConfig) {
    this.repoRoot = path.resolve(repoRoot);
    this.config = config;
  }

  /** Every base-check finding of one note; `type` is its resolved type path when known, for the slug exemption. */
  async check(note: Note, type: string | undefined): Promise<Finding[]> {
    const findings: Finding[] = [];
    const { config } = this;
    const title = titleLength(note);
    if (config.title !== 'off' && title !== undefined && title.length > config.titleMax) {
      const message = `title has ${title.length} characters, more than ${config.titleMax}: shorten the \`# \` heading`;
      findings.push(finding(note.file, config.title, 'title-length', message, title.line));
    }
    const slug = path.posix.basename(note.file).replace(/\.md$/, '');
    const length = [...slug].length;
    if (config.slug !== 'off' && length > config.slugMax && !config.slugExemptTypes.includes(type ?? writtenType(note, this.repoRoot) ?? '')) {
      const message = `file name \`${slug}\` has ${length} characters, more than ${config.slugMax}: rename the file to a shorter slug`;
      findings.push(finding(note.file, config.slug, 'slug-length', message));
    }
    if (config.links !== 'off') findings.push(...(await this.checkLinks(note, config.links)));
    return findings;
  }

  private async checkLinks(note: Note, severity: Severity): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const [index, site] of extractLinkSites(note.model.body).entries()) {
      const local = localPath(site.target);
      if (local === undefined) continue;
      const line = note.bodyLine + site.bodyLine;
      const broken = (why: string): void => {
        // The pointer into the model's `links` keeps two uses of one broken target apart.
        findings.push({ ...finding(note.file, severity, 'link-broken', `link \`${site.target}\` ${why}`, line), path: `/links/${index}` });
      };
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(note.file), local)).replace(/(.)\/$/, '$1');
      if (resolved === '..' || resolved.startsWith('../')) {
        broken('points outside the repository');
        continue;
      }
      const target = await cached(this.targets, resolved, (key) => this.lookUp(key));
      if (target === 'missing') broken(`does not resolve: ${resolved} does not exist`);
      else if (target === 'directory') broken(`names the directory ${resolved}, which has no ${DIRECTORY_LANDINGS.join(' or ')}`);
    }
    return findings;
  }

  private async lookUp(relative: string): Promise<Target> {
    const absolute = path.join(this.repoRoot, ...relative.split('/'));
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) return 'missing';
    if (!info.isDirectory()) return 'file';
    for (const landing of DIRECTORY_LANDINGS) {
      if ((await stat(path.join(absolute, landing)).catch(() => undefined))?.isFile()) return 'directory-with-landing';
    }
    return 'directory';
  }
}

/** The path of a local relative link target (anchors, URLs, `//host`, `/x` are not checked; `#`/`?` cut; escapes decoded). */
export function localPath(target: string): string | undefined {
  const trimmed = target.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('/') || trimmed.startsWith('\\')) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return undefined;
  const bare = trimmed.replace(/[?#].*$/s, '');
  if (bare === '') return undefined;
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

/** The note's title (first `# ` heading) with its length in characters and its file line. */
function titleLength(note: Note): { length: number; line: number | undefined } | undefined {
  if (note.title === undefined) return undefined;
  let line: number | undefined;
  forEachProseLine(note.model.body, (text, index) => {
    if (line === undefined && /^ {0,3}#[ \t]+\S/.test(text)) line = note.bodyLine + index;
  });
  return { length: [...note.title].length, line };
}

function writtenType(note: Note, repoRoot: string): string | undefined {
  const resolved = resolveKbPath(note.model.frontmatter['type'], note.file, repoRoot);
  return resolved.ok ? resolved.path : undefined;
}

function finding(file: string, severity: Severity, rule: string, message: string, line?: number): Finding {
  return { file, ...(line !== undefined && { line }), rule, severity, message };
}

/** Types whose `schema:` cannot load, each reported once at its type spec (`type-spec-schema`). */
export class TypeSpecSchemas {
  /** Per type path: why its schema cannot be used, and the notes of the run not checked against it. */
  private readonly types = new Map<string, { problem: Problem; notes: string[] }>();

  /** Records that `noteFile` was not checked because its type's schema is unusable. */
  record(typePath: string, problem: Problem, noteFile: string): void {
    const known = this.types.get(typePath);
    if (known === undefined) this.types.set(typePath, { problem, notes: [noteFile] });
    else known.notes.push(noteFile);
  }

  /** One finding per unusable type, at the type spec's `schema:` line, naming the notes left unchecked. */
  async findings(repoRoot: string, severity: Severity): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const [typePath, { problem, notes }] of [...this.types.entries()].sort(([a], [b]) => byCodePoint(a, b))) {
      const sorted = [...notes].sort();
      const named = sorted.length > 3 ? `${sorted.slice(0, 3).join(', ')} and ${sorted.length - 3} more` : sorted.join(', ');
      const count = sorted.length === 1 ? '1 note of this type is' : `${sorted.length} notes of this type are`;
      const reason = problem.message.replace(/^type [^:]+: /, '');
      const line = await schemaLine(repoRoot, typePath);
      findings.push({
        file: typePath,
        ...(line === undefined ? {} : { line }),
        rule: 'type-spec-schema',
        severity,
        path: '/frontmatter/schema',
        message: `${reason}; ${count} not checked against it (${named})`,
      });
    }
    return findings;
  }
}

async function schemaLine(repoRoot: string, typePath: string): Promise<number | undefined> {
  try {
    const parsed = parseNote(await readFile(path.join(repoRoot, ...typePath.split('/'))), typePath);
    return parsed.kind === 'note' ? lineOf(parsed.note, '/frontmatter/schema') : undefined;
  } catch {
    return undefined;
  }
}
