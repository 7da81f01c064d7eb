import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { parseNote } from '../../src/kb/notes.js';
import { walkFiles } from '../../src/review/files.js';
import { criterionHash, normaliseText, noteHash, noteParts, parseWatches, WATCHED_PARTS, type WatchedPart } from '../../src/review/hash.js';
import { ReviewError } from '../../src/review/errors.js';
import { corpusFixture } from './helpers.js';

const NOTE = [
  '---',
  'description: A note about freshness, used to test which edits change which hash',
  'type: kb/types/note.md',
  'traits: [title-as-claim]',
  'tags: [review, freshness]',
  '---',
  '',
  '# Freshness is a pure function of two hashes',
  '',
  'A result stays fresh while its note and its criterion hash as they did.',
  '',
  '- first item',
  '  - nested item',
  '',
  '```ts',
  'const x = 1;',
  '```',
  '',
  'A closing paragraph of two',
  'lines.',
  '',
].join('\n');

const swap =
  (from: string, to: string) =>
  (text: string): string => {
    if (!text.includes(from)) throw new Error(`test edit: ${JSON.stringify(from)} is not in the note`);
    return text.replace(from, to);
  };

type Part = WatchedPart;
/** Each edit, and the note parts it changes (an empty list: a whitespace-only or format-only edit). */
const EDITS: [string, (text: string) => string, Part[]][] = [
  ['trailing spaces on a body line', swap('hash as they did.', 'hash as they did.   '), []],
  ['a trailing tab on the title line', swap('two hashes\n', 'two hashes\t\n'), []],
  ['a run of blank lines between paragraphs', swap('they did.\n\n- first', 'they did.\n\n\n\n- first'), []],
  ['blank lines at the start of the body', swap('---\n\n# Fresh', '---\n\n\n\n# Fresh'), []],
  ['CRLF line endings throughout', (text) => text.replace(/\n/g, '\r\n'), []],
  ['the final newline removed', (text) => text.replace(/\n$/, ''), []],
  ['extra final newlines', (text) => `${text}\n\n\n`, []],
  ['a run of spaces inside a line', swap('stays fresh while', 'stays   fresh  while'), []],
  ['a tab between words', swap('stays fresh', 'stays\tfresh'), []],
  ['spaces inside the title heading', swap('# Freshness is', '#   Freshness  is'), []],
  ['a frontmatter key reorder', swap('type: kb/types/note.md\ntraits: [title-as-claim]\n', 'traits: [title-as-claim]\ntype: kb/types/note.md\n'), []],
  ['a flow list rewritten as a block list', swap('tags: [review, freshness]', 'tags:\n  - review\n  - freshness'), []],
  [
    'the description quoted',
    swap(
      'description: A note about freshness, used to test which edits change which hash',
      "description: 'A note about freshness, used to test which edits change which hash'",
    ),
    [],
  ],
  [
    'the description folded over two lines',
    swap(
      'description: A note about freshness, used to test which edits change which hash',
      'description: >-\n  A note about freshness, used to test\n  which edits change which hash',
    ),
    [],
  ],
  ['a YAML comment added', swap('tags: [review, freshness]', 'tags: [review, freshness] # topic tags'), []],
  ['one word of the body', swap('A closing paragraph', 'A final paragraph'), ['body']],
  ['a word inside a code block', swap('const x = 1;', 'const y = 1;'), ['body']],
  ['a space removed between two words', swap('its note', 'itsnote'), ['body']],
  ['a list item indented further', swap('  - nested item', '    - nested item'), ['body']],
  ['a paragraph re-wrapped (a line break moved)', swap('of two\nlines.', 'of\ntwo lines.'), ['body']],
  ['a paragraph split by a blank line', swap('of two\nlines.', 'of two\n\nlines.'), ['body']],
  ['one word of the title', swap('# Freshness is a pure function', '# Freshness is a total function'), ['title', 'body']],
  ['one word of the description', swap('used to test which edits', 'used to check which edits'), ['description', 'frontmatter']],
  ['a tag added', swap('tags: [review, freshness]', 'tags: [review, freshness, hashing]'), ['frontmatter']],
  ['two tags swapped (list order is content)', swap('tags: [review, freshness]', 'tags: [freshness, review]'), ['frontmatter']],
  ['a trait removed', swap('traits: [title-as-claim]', 'traits: []'), ['frontmatter']],
  ['a new frontmatter field', swap('tags: [review, freshness]\n', 'tags: [review, freshness]\nstatus: current\n'), ['frontmatter']],
];

/** The watch declarations gates use, plus the whole note (no valid `watches:`). */
const WATCH_SETS: [string, Part[] | undefined][] = [
  ['[title]', ['title']],
  ['[description]', ['description']],
  ['[body]', ['body']],
  ['[frontmatter]', ['frontmatter']],
  ['[title, description]', ['title', 'description']],
  ['[title, body]', ['title', 'body']],
  ['[title, description, body]', ['title', 'description', 'body']],
  ['the whole note', undefined],
];

const ROWS = EDITS.flatMap(([edit, change, changed]) =>
  WATCH_SETS.map(([watchName, watches]) => {
    const watched = watches ?? [...WATCHED_PARTS];
    const stale = changed.some((part) => watched.includes(part));
    return [edit, watchName, stale ? 'stale' : 'fresh', change, watches] as const;
  }),
);

describe('the note hash over watched parts', () => {
  test.each(ROWS)('%s, watched as %s: %s', (_edit, _watchName, expected, change, watches) => {
    const before = noteHash(NOTE, watches);
    const after = noteHash(change(NOTE), watches);
    expect(after === before ? 'fresh' : 'stale').toBe(expected);
  });

  test('a gate without watches, or with an invalid one, watches every part', () => {
    for (const invalid of [undefined, null, 'body', [], ['body', 'summary'], [1], { body: true }]) {
      const watches = parseWatches(invalid);
      expect(watches.declared).toBe(false);
      expect(watches.parts).toEqual(WATCHED_PARTS);
    }
    expect(parseWatches('body')).toMatchObject({ problem: '`watches:` must be a list of title, description, body, frontmatter, found the string `body`' });
    expect(noteHash(NOTE)).toBe(noteHash(NOTE, [...WATCHED_PARTS]));
    expect(noteHash(NOTE, [])).toBe(noteHash(NOTE));
  });

  test('a valid watches list is read in canonical order, duplicates dropped', () => {
    expect(parseWatches(['body', 'title', 'body'])).toEqual({ declared: true, parts: ['title', 'body'] });
    expect(noteHash(NOTE, ['body', 'title'])).toBe(noteHash(NOTE, ['title', 'body']));
  });

  test('different watch sets give different hashes of the same note', () => {
    const hashes = WATCH_SETS.map(([, watches]) => noteHash(NOTE, watches));
    expect(new Set(hashes).size).toBe(WATCH_SETS.length);
  });

  test('a note without frontmatter hashes as all body', () => {
    const text = '# A plain page\n\nJust text.\n';
    expect(noteHash(text, ['body'])).toBe(noteHash(`${text}\n\n`, ['body']));
    expect(noteHash(text, ['title'])).not.toBe(noteHash(text.replace('plain', 'simple'), ['title']));
  });

  test('a note whose frontmatter cannot be read cannot be hashed, and the error names the file', () => {
    expect(() => noteHash('---\ntitle: [unclosed\n---\nBody\n', ['body'], 'kb/notes/broken.md')).toThrow(ReviewError);
    expect(() => noteHash('---\ntitle: x\nBody\n', ['body'], 'kb/notes/broken.md')).toThrow(
      /kb\/notes\/broken\.md: cannot hash a note whose frontmatter cannot be read: .*never closed/,
    );
  });

  test("the corpus notes' parts are read as parseNote reads them (frontmatter, body, title)", async () => {
    const files = walkFiles(corpusFixture, 'kb').filter((file) => file.endsWith('.md'));
    expect(files.length).toBe(421);
    for (const file of files) {
      const text = await readFile(path.join(corpusFixture, file), 'utf8');
      const reference = parseNote(new TextEncoder().encode(text), file);
      const ours = noteParts(text, file);
      expect(ours.ok).toBe(reference.kind !== 'unreadable');
      if (!ours.ok || reference.kind === 'unreadable') continue;
      if (reference.kind === 'text') {
        expect(ours.frontmatter).toBeUndefined();
        expect(ours.parts.body).toBe(normaliseText(reference.text));
        continue;
      }
      expect(ours.frontmatter).toEqual(reference.note.model.frontmatter);
      expect(ours.parts.body).toBe(normaliseText(reference.note.model.body));
      expect(ours.parts.title).toBe(reference.note.title === undefined ? null : reference.note.title.replace(/\s+/g, ' ').trim());
    }
  });
});

describe('the criterion hash', () => {
  const GATE = '---\ngate_id: prose/x\nlens: prose\nwatches: [body]\n---\n\n## Failure mode\n\nSomething.\n\n## Test\n\nCheck it.\n';

  test.each([
    ['CRLF line endings', (text: string) => text.replace(/\n/g, '\r\n')],
    ['trailing spaces', (text: string) => text.replace('Something.', 'Something.  ')],
    ['a run of blank lines', (text: string) => text.replace('## Test\n\n', '## Test\n\n\n\n')],
    ['the final newline removed', (text: string) => text.trimEnd()],
    ['a byte-order mark', (text: string) => `\uFEFF${text}`],
  ])('%s in the criterion file change nothing', (_name, change) => {
    expect(criterionHash(change(GATE))).toBe(criterionHash(GATE));
  });

  test.each([
    ['a word of the test', (text: string) => text.replace('Check it.', 'Check it twice.')],
    ['its watches', (text: string) => text.replace('watches: [body]', 'watches: [title, body]')],
    [
      'a frontmatter key reorder (the criterion is hashed as text)',
      (text: string) => text.replace('lens: prose\nwatches: [body]', 'watches: [body]\nlens: prose'),
    ],
  ])('%s changes the criterion hash', (_name, change) => {
    expect(criterionHash(change(GATE))).not.toBe(criterionHash(GATE));
  });
});

describe('text normalisation', () => {
  // The rule as docs/freshness.md states it, line by line with regular expressions: the one-pass
  // `normaliseText` must give the same text for every input, or recorded hashes would stop matching.
  function byTheRule(text: string): string {
    const lines = text
      .replace(/^\uFEFF/, '')
      .replace(/\r\n?/g, '\n')
      .split('\n');
    const kept: string[] = [];
    let blank = false;
    for (const raw of lines) {
      const line = raw.replace(/[ \t]+$/, '');
      if (line === '') {
        blank = kept.length > 0;
        continue;
      }
      if (blank) kept.push('');
      blank = false;
      const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
      kept.push(indent + line.slice(indent.length).replace(/[ \t]{2,}|\t/g, ' '));
    }
    return kept.join('\n');
  }

  test('gives the rule’s text for every note of the corpus and for 20,000 texts of blanks, breaks and words', async () => {
    const files = walkFiles(corpusFixture, 'kb').filter((file) => file.endsWith('.md'));
    expect(files.length).toBe(421);
    for (const file of files) {
      const text = await readFile(path.join(corpusFixture, file), 'utf8');
      expect(normaliseText(text)).toBe(byTheRule(text));
    }
    // A fixed generator (no Math.random): the same texts on every run.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pieces = [' ', '  ', '\t', '\n', '\r', '\r\n', '\n\n', 'a', 'word', '\uFEFF', '\u00a0', '\v', '-', '#'];
    for (let count = 0; count < 20_000; count += 1) {
      let text = '';
      const length = next() % 24;
      for (let index = 0; index < length; index += 1) text += pieces[next() % pieces.length];
      expect(normaliseText(text)).toBe(byTheRule(text));
    }
  });
});
