import { execa } from 'execa';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { committedBetween, gitSnapshot } from '../../src/activities/review/edit/git.js';
import { TypeRegistry } from '../../src/kb/type-registry.js';
import { checkEditBounds, EDIT_SIZE_RATIO } from '../../src/review/edit/bounds.js';
import { checkDecision, sameText } from '../../src/review/edit/decision.js';
import { unifiedDiff } from '../../src/review/edit/diff.js';
import { changedPaths } from '../../src/review/edit/guard.js';
import { editRunId, optionsDifference } from '../../src/review/edit/identity.js';
import { editWorkflowId } from '../../src/runs/workflow-ids.js';
import { formatPacket, parsePacket, type PacketRecord } from '../../src/review/edit/packet.js';
import { parsePlan } from '../../src/review/edit/plan.js';
import { applySelections, formatSelection, locateSelections, parseSelectionList } from '../../src/review/edit/selection.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';
import { NOTE, noteText, sha256 } from './helpers.js';

describe('the final diff', () => {
  const base = ['---', 'type: kb/types/note.md', '---', '', '# Title', '', ...Array.from({ length: 20 }, (_, index) => `Line ${index + 1}.`), ''].join('\n');
  test.each([
    ['a changed line in the middle', base.replace('Line 10.', 'Line ten.')],
    ['two changes far apart (two hunks)', base.replace('Line 2.', 'Line two.').replace('Line 19.', 'Line nineteen.')],
    ['lines inserted at the start', `Preface.\nMore.\n${base}`],
    ['lines deleted at the end', base.replace('Line 19.\nLine 20.\n', '')],
    ['a final newline removed', base.trimEnd()],
    ['everything replaced', 'Something else entirely.\n'],
  ])('%s: git applies the diff to the start text and gets the final text', async (_name, after) => {
    const dir = await scratch();
    await writeFile(join(dir, 'note.md'), base);
    await writeFile(join(dir, 'patch.diff'), unifiedDiff(base, after, 'note.md'));
    await execa('git', ['apply', '-p1', '--unidiff-zero', 'patch.diff'], { cwd: dir });
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(dir, 'note.md'), 'utf8')).toBe(after);
  });

  test('equal texts have no diff, and hunks carry three lines of context', () => {
    expect(unifiedDiff(base, base, 'note.md')).toBe('');
    const diff = unifiedDiff(base, base.replace('Line 10.', 'Line ten.'), 'kb/notes/x.md');
    expect(diff.split('\n').slice(0, 3)).toEqual(['--- a/kb/notes/x.md', '+++ b/kb/notes/x.md', '@@ -13,7 +13,7 @@']);
    expect(diff).toContain('-Line 10.\n+Line ten.\n');
  });
});

describe('selection lists', () => {
  const text = '---\ndescription: plain words\ntype: kb/types/note.md\n---\n\n# Title\n\nWe leverage the cache. The cache is synergistic with the store.\n';

  test('a list reads back as it was written, with other lines ignored', () => {
    const selections = [
      { id: 's1', span: 'leverage', replacement: 'use', reason: 'plain verb' },
      { id: 's2', span: 'is synergistic with', replacement: 'works with', reason: '' },
      { id: 's3', span: 'a "quoted" span\\', replacement: 'x', reason: 'escapes' },
    ];
    const written = ['# heading', '', 'Some prose.', ...selections.map(formatSelection), ''].join('\n');
    expect(parseSelectionList(written)).toEqual({ ok: true, selections });
  });

  test.each([
    ['- [s1] leverage -> use', 'selection-syntax', 2, /not a selection of the form/],
    ['- [s1] "leverage" -> "leverage"', 'selection-unchanged', 2, /replaces its span with itself/],
    ['- [s1] "" -> "x"', 'selection-empty', 2, /empty span/],
    ['- [s1] "a" -> "b"\n- [s1] "c" -> "d"', 'selection-duplicate', 3, /appears twice/],
  ])('%j is refused with a %s finding on line %d', (list, rule, line, message) => {
    const parsed = parseSelectionList(`# heading\n${list}`, 'proposals/01-plain-wording.md');
    expect(parsed).toEqual({
      ok: false,
      findings: [{ file: 'proposals/01-plain-wording.md', line, rule, severity: 'fail', message: expect.stringMatching(message) }],
    });
  });

  test('spans must occur once in the body and not overlap; an approved list is applied span by span', () => {
    const finding = (rule: string, message: RegExp | string) => ({
      file: 'selections.md',
      rule,
      severity: 'fail',
      message: typeof message === 'string' ? message : expect.stringMatching(message),
    });
    expect(locateSelections(text, [{ id: 's1', span: 'plain words', replacement: 'x', reason: '' }])).toEqual({
      ok: false,
      findings: [finding('selection-not-found', /does not occur in the note's body/)],
    });
    expect(locateSelections(text, [{ id: 's1', span: 'cache', replacement: 'x', reason: '' }])).toEqual({
      ok: false,
      findings: [finding('selection-ambiguous', /occurs more than once/)],
    });
    expect(
      locateSelections(text, [
        { id: 's1', span: 'leverage the', replacement: 'x', reason: '' },
        { id: 's2', span: 'the cache.', replacement: 'y', reason: '' },
      ]),
    ).toEqual({
      ok: false,
      findings: [finding('selection-overlap', 'selections [s1] and [s2] overlap')],
    });
    expect(
      applySelections(text, [
        { id: 's2', span: 'is synergistic with', replacement: 'works with', reason: '' },
        { id: 's1', span: 'leverage', replacement: 'use', reason: '' },
      ]),
    ).toEqual({ ok: true, text: text.replace('leverage', 'use').replace('is synergistic with', 'works with') });
  });
});

describe('the decision line', () => {
  test.each([
    ['Because.\n\nDecision: edit\n', 'an edit with its rationale', { ok: true, decision: 'edit', rationale: 'Because.\n' }],
    ['Nothing to do.\nDecision: no-edit\n\n', 'no edit, trailing blank lines aside', { ok: true, decision: 'no-edit', rationale: 'Nothing to do.\n' }],
    [
      'Decision: maybe\n',
      'a finding naming the two lines it may be',
      {
        ok: false,
        finding: {
          file: 'decision.md',
          line: 1,
          rule: 'decision-line',
          severity: 'fail',
          message: expect.stringMatching(/must end with exactly `Decision: edit` or `Decision: no-edit`/),
        },
      },
    ],
    [
      '',
      'a finding that the file is empty',
      { ok: false, finding: { file: 'decision.md', rule: 'decision-line', severity: 'fail', message: expect.stringMatching(/is empty/) } },
    ],
  ])('%j reads as %s', (text, _reads, expected) => {
    expect(checkDecision(text)).toEqual(expected);
  });

  test('texts that differ only in line endings and trailing blanks are the same', () => {
    expect(sameText('a  \r\nb\n\n', 'a\nb')).toBe(true);
    expect(sameText('a b', 'a  b')).toBe(false);
  });
});

describe('revision plans', () => {
  test('every problem of a plan is a finding with a JSON Pointer, like a schema finding', () => {
    expect(parsePlan('passes:\n  - shorten\n  - pass: tighten\n    mood: brisk\n', 'plan.yaml')).toEqual({
      ok: false,
      findings: [
        { file: 'plan.yaml', path: '/passes/0/pass', rule: 'plan/invalid_value', severity: 'fail', message: expect.stringMatching(/^unknown pass "shorten"/) },
        { file: 'plan.yaml', path: '/passes/1', rule: 'plan/unrecognized_keys', severity: 'fail', message: expect.stringContaining('mood') },
      ],
    });
  });

  test('a plan that is not YAML is one finding with its line', () => {
    expect(parsePlan('passes: [tighten\n', 'plan.yaml')).toEqual({
      ok: false,
      findings: [{ file: 'plan.yaml', line: expect.any(Number), rule: 'plan-yaml', severity: 'fail', message: expect.stringMatching(/^not valid YAML: /) }],
    });
  });
});

describe('run identity', () => {
  test('the workflow ID is the kind, the note path and the text hash; the run ID is readable and one path segment', () => {
    const hash = sha256('text');
    expect(editWorkflowId('full-pass', '0a1b2c3d', 'kb/notes/x.md', hash)).toBe(`full-pass/0a1b2c3d/kb/notes/x.md/${hash.slice(0, 12)}`);
    expect(editRunId('revise', 'kb/notes/sub dir/x.md', hash, sha256('kb/notes/sub dir/x.md'))).toBe(`revise-notes_sub_dir_x-${hash.slice(0, 12)}`);
    const long = `kb/notes/${'a'.repeat(120)}.md`;
    const id = editRunId('full-pass', long, hash, sha256(long));
    expect(id.length).toBeLessThan(120);
    expect(id).toContain(sha256(long).slice(0, 8));
  });

  test('a difference of options is named, one line per option', () => {
    expect(optionsDifference({ profile: 'claude', direction: null }, { profile: 'claude', direction: null })).toEqual([]);
    expect(optionsDifference({ profile: 'claude', direction: null }, { profile: 'codex', direction: 'shorter' })).toEqual([
      'direction: the run has none, this command asks "shorter"',
      'profile: the run has "claude", this command asks "codex"',
    ]);
  });
});

describe('packets', () => {
  const record: PacketRecord = {
    packet: 'full-pass',
    note: 'kb/notes/x.md',
    run: 'full-pass-notes_x-abc',
    start_sha256: sha256('a'),
    final_sha256: sha256('b'),
    decision: 'edit',
    closing: 'residual',
    resolved: ['prose/a'],
    remaining: ['prose/b'],
    introduced: [],
    profile: 'fake',
  };

  test('a packet reads back as code wrote it', () => {
    const text = formatPacket(record, '# Full pass: X\n\nBody.');
    expect(text.startsWith('---\npacket: full-pass\nnote: kb/notes/x.md\n')).toBe(true);
    expect(parsePacket(text)).toEqual({ ok: true, record, body: '# Full pass: X\n\nBody.\n' });
  });

  test('a packet with a key code does not write, or a hash that is not one, is refused', () => {
    const text = formatPacket(record, 'Body.').replace('closing: residual', 'closing: residual\nmood: good').replace(sha256('a'), 'abc');
    const parsed = parsePacket(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.findings.join('\n')).toMatch(/start_sha256(.|\n)*Unrecognized key: "mood"|Unrecognized key: "mood"(.|\n)*start_sha256/);
  });
});

describe('the edit bounds', () => {
  let checkout: string;
  let before: string;
  beforeAll(async () => {
    checkout = await corpusCopy();
    before = await noteText(checkout);
  });
  const check = (after: string) => checkEditBounds({ checkout, note: NOTE, before, after, registry: new TypeRegistry(checkout) });

  test('an edit inside the bounds passes', async () => {
    expect(
      await check(
        before
          .replace('deliberately minimal', 'minimal on purpose')
          .replace('(./tool-loop-README.md) becomes', '(./bounded-context-orchestration-model.md) becomes'),
      ),
    ).toEqual([]);
  });

  test.each([
    ['a dropped frontmatter key', (text: string) => text.replace(/^tags: .*\n/m, ''), 'edit-frontmatter-keys', /drops frontmatter key `tags`/],
    ['an added frontmatter key', (text: string) => text.replace(/^tags:/m, 'status: draft\ntags:'), 'edit-frontmatter-keys', /adds frontmatter key `status`/],
    [
      'a changed type',
      (text: string) => text.replace('type: kb/types/note.md', 'type: kb/types/definition.md'),
      'edit-type',
      /changes `type:` from "kb\/types\/note\.md" to "kb\/types\/definition\.md"/,
    ],
    [
      'a link to a missing file',
      (text: string) => `${text}\nSee [elsewhere](./no-such-note.md#part).\n`,
      'edit-link',
      /adds a link to \.\/no-such-note\.md#part, which is not a file of the checkout \(kb\/notes\/no-such-note\.md\)/,
    ],
    ['a link out of the checkout', (text: string) => `${text}\nSee [up](../../../etc/passwd).\n`, 'edit-link', /not a file of the checkout/],
    [
      'a text grown past the ratio',
      (text: string) => `${text}\n${'More words. '.repeat(Math.ceil(text.length / 10))}\n`,
      'edit-size',
      new RegExp(`within ${EDIT_SIZE_RATIO.min}–${EDIT_SIZE_RATIO.max} times`),
    ],
    ['a text cut below the ratio', (text: string) => text.slice(0, Math.floor(text.length * 0.4)), 'edit-size', /times the \d+ it edits/],
    [
      'a note that no longer validates',
      (text: string) => text.replace('traits: [title-as-claim]', 'traits: [title-as-claim, title-as-claim]'),
      'edit-validation',
      /no longer validates: /,
    ],
    ['a text without frontmatter', (text: string) => text.replace(/^---\n[\s\S]*?\n---\n/, ''), 'edit-unreadable', /not a note with readable frontmatter/],
  ])('%s is refused with an %s finding on the note', async (_name, edit, rule, message) => {
    const findings = await check(edit(before));
    expect(findings).toContainEqual(expect.objectContaining({ file: NOTE, rule, severity: 'fail', message: expect.stringMatching(message) }));
  });

  test('a finding the edit introduces into validation keeps its pointer and line', async () => {
    const findings = await check(before.replace('traits: [title-as-claim]', 'traits: [title-as-claim, title-as-claim]'));
    expect(findings).toEqual([
      expect.objectContaining({
        file: NOTE,
        rule: 'edit-validation',
        path: expect.stringMatching(/^\/frontmatter\/traits/),
        line: expect.any(Number),
        severity: 'fail',
      }),
    ]);
  });

  test('links to URLs and anchors, and links the note already had, are not checked', async () => {
    expect(await check(`${before}\n[web](https://example.org/x) and [here](#title) and [again](./tool-loop-README.md).\n`)).toEqual([]);
  });
});

describe('the checkout guard', () => {
  test('it reports paths changed since the baseline, outside review state; a path dirty before the run and unchanged is not reported', async () => {
    const root = await scratch();
    const git = (...args: string[]) => execa('git', ['-C', root, ...args]);
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'Test');
    await git('config', 'user.email', 'test@example.invalid');
    await mkdir(join(root, 'kb', 'notes'), { recursive: true });
    await writeFile(join(root, 'kb', 'notes', 'a.md'), 'a\n');
    await writeFile(join(root, 'kb', 'notes', 'b.md'), 'b\n');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'start');
    await writeFile(join(root, 'kb', 'notes', 'dirty-before.md'), 'already here\n');
    const base = await gitSnapshot(root);
    expect(Object.keys(base.entries)).toEqual(['kb/notes/dirty-before.md']);

    await writeFile(join(root, 'kb', 'notes', 'a.md'), 'a, edited\n');
    await writeFile(join(root, 'kb', 'notes', 'new.md'), 'new\n');
    await mkdir(join(root, 'kb', 'reports', 'state', 'review', 'runs', 'r'), { recursive: true });
    await writeFile(join(root, 'kb', 'reports', 'state', 'review', 'runs', 'r', 'x.json'), '{}');
    const now = await gitSnapshot(root);
    expect(changedPaths(base, now, await committedBetween(root, base.head, now.head))).toEqual(['kb/notes/a.md', 'kb/notes/new.md']);

    // A commit by someone else moves HEAD: the paths it touched are reported, even once clean again.
    await writeFile(join(root, 'kb', 'notes', 'b.md'), 'b, committed elsewhere\n');
    await git('commit', '-q', '-am', 'elsewhere');
    const later = await gitSnapshot(root);
    expect(changedPaths(now, later, await committedBetween(root, now.head, later.head))).toEqual(['kb/notes/a.md', 'kb/notes/b.md']);
  });

  test('a checkout that is not a Git working tree is refused with what to do', async () => {
    await expect(gitSnapshot(await scratch())).rejects.toThrow(/the checkout guard needs Git: .* is not a Git working tree .*git init/);
  });
});
