import { composePrompt, parseSection, renderSection, sectionNames } from '../../src/analysis/prompt.js';

const section = [
  'Write {output} for run {run}.',
  '',
  '[findings] Your answer was rejected: {findings} lists why.',
  '',
  '[refusal] A verifier refused it: answer {refusal}.',
  '',
  '[findings][refusal] Both at once.',
  '',
  '```',
  'a fence keeps {output}',
  '',
  'and its blank line',
  '```',
  '',
].join('\n');

describe('prompt composition', () => {
  test('a prompt is the instruction, the name = value lines, then the section with unmarked and satisfied paragraphs, exactly', () => {
    const prompt = composePrompt({
      instruction: '# Runtime report\n\nDescribe how it runs.\n',
      lines: [
        { name: 'job', value: 'runtime-report' },
        { name: 'run', value: 'AAS-2030-01-01-toy-01' },
        { name: 'output', value: 'runtime-report.md' },
        { name: 'findings', value: 'findings.md' },
      ],
      section,
    });
    expect(prompt).toBe(
      [
        '# Runtime report',
        '',
        'Describe how it runs.',
        '',
        'job = runtime-report',
        'run = AAS-2030-01-01-toy-01',
        'output = runtime-report.md',
        'findings = findings.md',
        '',
        'Write runtime-report.md for run AAS-2030-01-01-toy-01.',
        '',
        'Your answer was rejected: findings.md lists why.',
        '',
        '```',
        'a fence keeps runtime-report.md',
        '',
        'and its blank line',
        '```',
        '',
      ].join('\n'),
    );
  });

  const conditional = ['Your answer was rejected', 'A verifier refused it', 'Both at once.'];
  test.each([
    ['no extra line', [], []],
    ['findings only', ['findings'], ['Your answer was rejected']],
    ['refusal only', ['refusal'], ['A verifier refused it']],
    ['both', ['findings', 'refusal'], conditional],
  ])('a paragraph marked [name] is kept only when the prompt has that line (%s)', (_label, extra, kept) => {
    const lines = [{ name: 'output', value: 'o.md' }, { name: 'run', value: 'r' }, ...extra.map((name) => ({ name, value: `${name}.md` }))];
    const rendered = renderSection(section, lines);
    if (!rendered.ok) throw new Error('did not render');
    expect(conditional.filter((text) => rendered.text.includes(text))).toEqual(kept);
    expect(rendered.text).toMatch(/^Write o\.md for run r\./);
    expect(rendered.text).toMatch(/```\na fence keeps o\.md\n\nand its blank line\n```$/);
    expect(rendered.text).not.toMatch(/\[(findings|refusal)\]/);
  });

  test('a placeholder without its line is reported with its section line, and composing refuses it', () => {
    expect(renderSection('Write {output}.\n\nThen {missing-line}.', [{ name: 'output', value: 'o.md' }])).toEqual({
      ok: false,
      missing: [{ name: 'missing-line', line: 3 }],
    });
    expect(() => composePrompt({ instruction: 'x', lines: [], section: 'Write {output}.' })).toThrow(/refers to \{output\}, which this prompt has no line for/);
  });

  test('a multi-line value is printed on one line', () => {
    expect(composePrompt({ instruction: '', lines: [{ name: 'changed', value: 'a,\n  b' }], section: '' })).toBe('changed = a, b\n');
  });

  test('markers and placeholders are found with their lines; fenced blank lines do not split a paragraph', () => {
    expect(parseSection(section).map((paragraph) => [paragraph.line, paragraph.markers])).toEqual([
      [1, []],
      [3, ['findings']],
      [5, ['refusal']],
      [7, ['findings', 'refusal']],
      [9, []],
    ]);
    expect(sectionNames(section).map((name) => `${name.kind}:${name.name}@${name.line}`)).toEqual([
      'placeholder:output@1',
      'placeholder:run@1',
      'marker:findings@3',
      'placeholder:findings@3',
      'marker:refusal@5',
      'placeholder:refusal@5',
      'marker:findings@7',
      'marker:refusal@7',
      'placeholder:output@10',
    ]);
  });
});
