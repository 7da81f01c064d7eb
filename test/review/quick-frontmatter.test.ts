import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import { walkFiles } from '../../src/review/files.js';
import { quickFrontmatter } from '../../src/review/quick-frontmatter.js';
import { corpusRoot } from '../helpers/kb.js';

const yamlOf = (lines: readonly string[]): unknown =>
  YAML.parseDocument(lines.join('\n'), { uniqueKeys: true, prettyErrors: false }).toJS({ maxAliasCount: 100 });

describe('the quick frontmatter reader', () => {
  test('reads every note of the shared corpus it accepts exactly as YAML does, and accepts most of them', async () => {
    let accepted = 0;
    let notes = 0;
    for (const file of walkFiles(corpusRoot, 'kb').filter((path) => path.endsWith('.md'))) {
      const lines = (await readFile(`${corpusRoot}/${file}`, 'utf8')).split('\n');
      if (lines[0] !== '---') continue;
      const close = lines.indexOf('---', 1);
      if (close === -1) continue;
      notes += 1;
      const quick = quickFrontmatter(lines.slice(1, close));
      if (quick === undefined) continue;
      accepted += 1;
      expect({ file, data: quick }).toEqual({ file, data: yamlOf(lines.slice(1, close)) });
      expect(Object.keys(quick)).toEqual(Object.keys(yamlOf(lines.slice(1, close)) as object));
    }
    expect(notes).toBeGreaterThan(300);
    expect(accepted / notes).toBeGreaterThan(0.9);
  });

  test.each([
    ['plain text with inner spaces and punctuation', "description: A KB's quality — measured [by] {how} far, not 50%"],
    ['a double-quoted string with escapes', 'description: "say \\"this\\" \\u00e9"'],
    ['a flow list of words', 'tags: [a-b, c.d, e_f]'],
    ['an empty flow list', 'traits: []'],
  ])('accepts %s, read as YAML reads it', (_title, line) => {
    expect(quickFrontmatter([line])).toEqual(yamlOf([line]));
  });

  test.each([
    ['a bool', 'complete: true'],
    ['a number', 'order: 12'],
    ['a null', 'parent: ~'],
    ['a number in a list', 'tags: [a, 12]'],
    ['a comment', 'type: kb/types/note.md # the usual'],
    ['a nested mapping', 'description: a: b'],
    ['a value ending in a colon', 'description: see:'],
    ['a single-quoted string', "description: 'quoted'"],
    ['a block list', 'tags:'],
    ['a duplicate key', 'type: a\ntype: b'],
    ['an indicator first', 'description: *anchor'],
    ['a tab inside', 'description: a\tb'],
    ['a trailing blank', 'description: words '],
  ])('leaves %s to the YAML parser', (_title, text) => {
    expect(quickFrontmatter(text.split('\n'))).toBeUndefined();
  });
});
