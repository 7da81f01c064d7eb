import { describe, expect, test } from '@jest/globals';
import { extractBodyDates, extractHeadings, extractLinks, lineOf, parseNote, type NoteParse } from '../../src/kb/notes.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function note(parse: NoteParse) {
  if (parse.kind !== 'note') throw new Error(`expected a note, got ${parse.kind}: ${JSON.stringify(parse.findings)}`);
  return parse.note;
}

describe('the document model', () => {
  const source = [
    '---',
    'type: kb/types/note.md',
    'description: A note exercising every part of the document model at once',
    'created: 2026-01-05',
    'tags:',
    '  - a',
    '  - b',
    '---',
    '',
    '# The title',
    '',
    'See [the spec](./spec.md "Spec") and ![a chart](<img/chart one.png>) and [wiki](https://en.wikipedia.org/wiki/Foo_(bar)).',
    'Code `[not](a-link.md)` is skipped; dates 2026-01-02, 2026-01-02 and 2025-12-31.',
    '',
    '## Test ##',
    '',
    '```markdown',
    '# Not a heading',
    '[not a link](inside-fence.md)',
    '```',
    '',
    '~~~',
    '## Also not',
    '~~~',
    '   ### Indented heading   ',
    '####### seven hashes is not a heading',
  ].join('\n');
  const parsed = note(parseNote(bytes(source), 'kb/notes/model.md'));

  test('frontmatter is the YAML mapping, with dates kept as strings', () => {
    expect(parsed.model.frontmatter).toEqual({
      type: 'kb/types/note.md',
      description: 'A note exercising every part of the document model at once',
      created: '2026-01-05',
      tags: ['a', 'b'],
    });
  });

  test('the body is everything after the closing delimiter and starts on the next line', () => {
    expect(parsed.model.body.startsWith('\n# The title\n')).toBe(true);
    expect(parsed.bodyLine).toBe(9);
  });

  test('headings are the heading lines as written, outside code fences', () => {
    expect(parsed.model.headings).toEqual(['# The title', '## Test', '### Indented heading']);
  });

  test('the title is the first `# ` heading and the description is frontmatter `description`', () => {
    expect(parsed.title).toBe('The title');
    expect(parsed.description).toBe('A note exercising every part of the document model at once');
  });

  test('links are the targets of inline links and images, outside code', () => {
    expect(parsed.model.links).toEqual(['./spec.md', 'img/chart one.png', 'https://en.wikipedia.org/wiki/Foo_(bar)']);
  });

  test('body dates are the ISO dates of the body, unique, in order of first appearance', () => {
    expect(parsed.model.body_dates).toEqual(['2026-01-02', '2025-12-31']);
  });

  test('every frontmatter field knows its line in the file', () => {
    expect(lineOf(parsed, '/frontmatter/description')).toBe(3);
    expect(lineOf(parsed, '/frontmatter/tags/1')).toBe(7);
    expect(lineOf(parsed, '/frontmatter/missing')).toBe(1);
    expect(lineOf(parsed, '/headings')).toBeUndefined();
  });
});

describe('what is not a note', () => {
  test('a file without a frontmatter block is plain text, with its title', () => {
    const parsed = parseNote(bytes('# Readme\n\nJust text.\n'), 'kb/README.md');
    expect(parsed).toEqual({ kind: 'text', text: '# Readme\n\nJust text.\n', title: 'Readme', findings: [] });
  });

  test('a first line that only starts with dashes is not a frontmatter block, so a `---js` block is never evaluated', () => {
    const parsed = parseNote(bytes('---js\n{ title: process.exit(3) }\n---\n# x\n'), 'kb/evil.md');
    expect(parsed.kind).toBe('text');
  });

  test('a closing line that is not exactly `---` is a finding on that line', () => {
    const parsed = parseNote(bytes('---\ntype: kb/types/note.md\n---- \n# x\n'), 'kb/x.md');
    expect(parsed).toEqual({
      kind: 'unreadable',
      findings: [expect.objectContaining({ rule: 'frontmatter-delimiter', severity: 'fail', line: 3 })],
    });
  });

  test('frontmatter that is a list rather than a mapping is a finding', () => {
    const parsed = parseNote(bytes('---\n- a\n- b\n---\n'), 'kb/x.md');
    expect(parsed.findings).toEqual([
      expect.objectContaining({ rule: 'frontmatter-not-mapping', message: 'frontmatter must be a YAML mapping of fields, found a list' }),
    ]);
  });

  test('a duplicated frontmatter key is malformed YAML on the line of the repeat', () => {
    const parsed = parseNote(bytes('---\ntype: a\ndescription: x\ntype: b\n---\n'), 'kb/x.md');
    expect(parsed.findings).toEqual([expect.objectContaining({ rule: 'yaml', line: 4, message: 'malformed YAML frontmatter: Map keys must be unique' })]);
  });

  test('an empty frontmatter block is a note with no fields', () => {
    expect(note(parseNote(bytes('---\n---\n# Empty\n'), 'kb/x.md')).model.frontmatter).toEqual({});
  });

  test('delimiters with trailing blanks are accepted', () => {
    expect(note(parseNote(bytes('--- \ntype: x\n---\t\n# T\n'), 'kb/x.md')).model.frontmatter).toEqual({ type: 'x' });
  });
});

describe('body extraction helpers', () => {
  test('headings ignore lines inside an unclosed fence', () => {
    expect(extractHeadings('# A\n```\n# B\n')).toEqual(['# A']);
  });

  test('a fence closes only with the same character and at least its length', () => {
    expect(extractHeadings('````\n```\n# inside\n````\n# after')).toEqual(['# after']);
  });

  test('links in link text with brackets and empty alt text are found', () => {
    expect(extractLinks('[a [nested] text](x.md) ![](y.png) [no link] (z.md)')).toEqual(['x.md', 'y.png']);
  });

  test('dates glued to letters or digits are not dates', () => {
    expect(extractBodyDates('v2026-01-01 2026-01-011 2026-01-01T10:00 (2026-03-04)')).toEqual(['2026-03-04']);
  });
});
