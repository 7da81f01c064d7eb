import { drawSample, type SampleCandidate } from '../../src/review/compare/sample.js';

/** `notes` notes × the named criteria, with recorded outcomes where given (`criterion → note index → outcome`). */
function candidates(
  notes: number,
  criteria: string[],
  recorded: Record<string, Record<number, SampleCandidate['recorded']>> = {},
  report: string[] = [],
): SampleCandidate[] {
  const all: SampleCandidate[] = [];
  for (let index = 0; index < notes; index++) {
    for (const criterion of criteria) {
      const outcome = recorded[criterion]?.[index];
      all.push({
        note: `kb/notes/n${String(index).padStart(2, '0')}.md`,
        criterion,
        kind: 'gate:prose',
        report: report.includes(criterion),
        ...(outcome !== undefined && { recorded: outcome }),
      });
    }
  }
  return all;
}

const perCriterion = (pairs: { criterion: string }[]) =>
  pairs.reduce<Record<string, number>>((counts, pair) => ({ ...counts, [pair.criterion]: (counts[pair.criterion] ?? 0) + 1 }), {});

describe('the compare sample', () => {
  test('the same candidates and seed draw the same pairs, whatever order the candidates come in', () => {
    const all = candidates(20, ['prose/a', 'prose/b', 'prose/c'], { 'prose/b': { 3: 'fail', 7: 'warn' } });
    const options = { seed: 42, size: 12, perCriterionMin: 2 };
    expect(drawSample([...all].reverse(), options)).toEqual(drawSample(all, options));
  });

  test('another seed draws another sample', () => {
    const all = candidates(20, ['prose/a', 'prose/b', 'prose/c']);
    expect(drawSample(all, { seed: 1, size: 12, perCriterionMin: 2 }).pairs).not.toEqual(drawSample(all, { seed: 2, size: 12, perCriterionMin: 2 }).pairs);
  });

  test.each([
    {
      name: 'every criterion at least k pairs when the size allows',
      notes: 10,
      criteria: ['a/1', 'a/2', 'a/3', 'a/4'],
      size: 9,
      k: 2,
      least: { 'a/1': 2, 'a/2': 2, 'a/3': 2, 'a/4': 2 },
    },
    { name: 'a criterion with fewer pairs than k gives all it has', notes: 1, criteria: ['a/1', 'a/2'], size: 10, k: 3, least: { 'a/1': 1, 'a/2': 1 } },
    { name: 'a size over the pairs available takes them all', notes: 3, criteria: ['a/1', 'a/2'], size: 50, k: 1, least: { 'a/1': 3, 'a/2': 3 } },
  ])('$name', ({ notes, criteria, size, k, least }) => {
    const sample = drawSample(candidates(notes, criteria), { seed: 7, size, perCriterionMin: k });
    expect(sample.size).toBe(Math.min(size, notes * criteria.length));
    const counts = perCriterion(sample.pairs);
    for (const [criterion, n] of Object.entries(least)) expect(counts[criterion]).toBeGreaterThanOrEqual(n);
  });

  test('report criteria are never sampled', () => {
    const sample = drawSample(candidates(5, ['prose/a', 'kb/instructions/critique-note.md'], {}, ['kb/instructions/critique-note.md']), {
      seed: 3,
      size: 10,
      perCriterionMin: 2,
    });
    expect(sample.pairs.map((pair) => pair.criterion)).toEqual(Array(5).fill('prose/a'));
  });

  test("a size too small for every criterion's minimum serves the criteria with recorded warn or fail first", () => {
    const all = candidates(5, ['a/1', 'a/2', 'a/3', 'z/rare'], { 'z/rare': { 4: 'fail' } });
    const sample = drawSample(all, { seed: 11, size: 1, perCriterionMin: 1 });
    expect(sample.pairs.map((pair) => pair.criterion)).toEqual(['z/rare']);
  });

  test('pairs whose result says warn or fail are drawn more often than pairs that passed', () => {
    const recorded: Record<number, SampleCandidate['recorded']> = {};
    for (let index = 0; index < 20; index++) recorded[index] = index < 4 ? 'fail' : 'pass';
    const all = candidates(20, ['prose/a'], { 'prose/a': recorded });
    let failed = 0;
    let passed = 0;
    for (let seed = 0; seed < 200; seed++) {
      for (const pair of drawSample(all, { seed, size: 5, perCriterionMin: 0 }).pairs) {
        if (Number(pair.note.slice(10, 12)) < 4) failed += 1;
        else passed += 1;
      }
    }
    // Drawn uniformly, each pair would be drawn equally often; weighted (4 against 2 in a criterion with a failure), a failed pair about twice as often.
    expect(failed / 4).toBeGreaterThan((passed / 16) * 1.5);
  });

  test('the sample records its seed, its minimum and the globs it was limited by', () => {
    const sample = drawSample(candidates(2, ['prose/a']), { seed: 5, size: 1, perCriterionMin: 1, criteria: ['prose/*'], notes: ['kb/notes/**'] });
    expect(sample).toMatchObject({ seed: 5, size: 1, perCriterionMin: 1, criteria: ['prose/*'], notes: ['kb/notes/**'] });
  });
});
