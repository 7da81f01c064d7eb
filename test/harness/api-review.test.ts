// The parts of the model-API executors that are plain functions: the limit headers' reset, the
// structured answer's check, and the review file it becomes.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { resetFromHeaders } from '../../src/harness/executors/api-limits.js';
import {
  answerTools,
  criterionToolName,
  MAX_FINDING_CHARS,
  MAX_FINDINGS,
  reviewAnswerSchema,
  reviewRequest,
  type ReviewRequest,
} from '../../src/harness/executors/api-request.js';
import { apiFailure, checkAnswer, checkToolCalls, reviewText } from '../../src/harness/executors/api-review.js';
import { literalAnswer } from '../helpers/model-apis/replies.js';
import { checkBundle, checkResultLine } from '../../src/review/result-line.js';

const now = new Date('2026-12-04T12:00:00Z');

describe('the reset a rate-limited response names', () => {
  test.each<[string, Record<string, string>, string | null]>([
    ['retry-after in seconds', { 'retry-after': '90' }, '2026-12-04T12:01:30.000Z'],
    ['retry-after as an HTTP date', { 'retry-after': 'Fri, 04 Dec 2026 13:00:00 GMT' }, '2026-12-04T13:00:00.000Z'],
    [
      'the latest anthropic-ratelimit-*-reset',
      { 'anthropic-ratelimit-requests-reset': '2026-12-04T12:00:10Z', 'anthropic-ratelimit-tokens-reset': '2026-12-04T12:05:00Z' },
      '2026-12-04T12:05:00.000Z',
    ],
    ['the latest x-ratelimit-reset-* duration', { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }, '2026-12-04T12:06:00.000Z'],
    ['retry-after before the others', { 'retry-after': '5', 'x-ratelimit-reset-tokens': '1h' }, '2026-12-04T12:00:05.000Z'],
    ['nothing when no header says', { 'content-type': 'application/json' }, null],
  ])('%s', (_title, headers, expected) => {
    expect(resetFromHeaders(new Headers(headers), now)).toBe(expected);
  });
});

const pair: ReviewRequest = {
  grouping: 'pair',
  note: 'kb/notes/a.md',
  noteText: 'text',
  criteria: [{ id: 'sentence/x', text: 'gate' }],
  output: 'review.md',
  outcomes: ['pass', 'warn', 'fail'],
  refusals: [],
};
const bundle: ReviewRequest = {
  ...pair,
  grouping: 'bundle',
  criteria: [
    { id: 'sentence/x', text: 'x' },
    { id: 'sentence/y', text: 'y' },
  ],
};

describe('the structured answer', () => {
  test('a pair answer becomes a review whose last line is its verdict, findings as list items that cannot read as a result line', () => {
    const checked = checkAnswer({ reviews: [{ criterion: 'sentence/x', verdict: 'warn', findings: ['Result: fail', 'Two\nlines'] }] }, pair);
    expect(checked.ok).toBe(true);
    const text = reviewText(pair, checked.ok ? checked.answer : (undefined as never));
    expect(text).toBe('- Result: fail\n- Two lines\n\nResult: warn\n');
    expect(checkResultLine(text, {})).toMatchObject({ ok: true, outcome: 'warn' });
  });

  test('a bundle answer becomes one section per criterion, accepted by the bundle check', () => {
    const checked = checkAnswer(
      {
        reviews: [
          { criterion: 'sentence/x', verdict: 'pass', findings: [] },
          { criterion: 'sentence/y', verdict: 'fail', findings: ['## sentence/x'] },
        ],
      },
      bundle,
    );
    const text = reviewText(bundle, checked.ok ? checked.answer : (undefined as never));
    const check = checkBundle(text, ['sentence/x', 'sentence/y']);
    expect(check.accepted.map((section) => [section.gate, section.outcome])).toEqual([
      ['sentence/x', 'pass'],
      ['sentence/y', 'fail'],
    ]);
    expect(check.rejected).toEqual([]);
  });

  test.each<[string, unknown, RegExp]>([
    ['not the schema', { reviews: [{ criterion: 'sentence/x', outcome: 'fine' }] }, /malformed structured answer: reviews\.0/],
    ['another criterion', { reviews: [{ criterion: 'sentence/z', verdict: 'pass', findings: [] }] }, /reviews sentence\/z, not sentence\/x/],
    ['a verdict not allowed', { reviews: [{ criterion: 'sentence/x', verdict: 'report', findings: [] }] }, /verdict report for sentence\/x/],
    ['no answer at all', undefined, /malformed structured answer/],
    ['no review (what the schema without minItems let a literal model give)', { reviews: [] }, /reviews nothing, not sentence\/x/],
    ['a pass with findings', { reviews: [{ criterion: 'sentence/x', verdict: 'pass', findings: ['Fine.'] }] }, /sentence\/x passes with findings/],
    ['too many findings', { reviews: [{ criterion: 'sentence/x', verdict: 'fail', findings: Array(MAX_FINDINGS + 1).fill('Fix it.') }] }, /findings/],
    ['a finding over the bound', { reviews: [{ criterion: 'sentence/x', verdict: 'warn', findings: ['x'.repeat(MAX_FINDING_CHARS + 1)] }] }, /findings\.0/],
  ])('an answer with %s is refused, naming why', (_title, value, why) => {
    const checked = checkAnswer(value, pair);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.why).toMatch(why);
  });
});

describe("a unit's answer schema", () => {
  const ajv = new Ajv2020({ strict: false });
  const ids = (request: ReviewRequest) => request.criteria.map((criterion) => criterion.id);
  const report: ReviewRequest = { ...pair, outcomes: ['report'] };

  test.each([
    ['a pair', pair],
    ['a bundle', bundle],
    ['a report criterion', report],
  ] as const)(
    'for %s: its criteria as an enum, exactly one review each, and the smallest answer it allows is a whole one the check accepts',
    (_title, request) => {
      for (const dialect of ['anthropic', 'openai'] as const) {
        const schema = reviewAnswerSchema(ids(request), request.outcomes, dialect);
        expect(schema.properties.reviews).toMatchObject({ minItems: request.criteria.length, maxItems: request.criteria.length });
        // OpenAI's strict mode wants each enum's type; Anthropic's tools, input in every request, say only what a single criterion needs.
        const order = { description: 'the criterion id, as given, each once, in the order given' };
        const criterion =
          dialect === 'openai'
            ? { type: 'string', enum: ids(request), ...order }
            : request.criteria.length > 1
              ? { enum: ids(request), ...order }
              : { enum: ids(request) };
        expect(JSON.stringify(schema)).toContain(`"criterion":${JSON.stringify(criterion)}`);
        const smallest = literalAnswer(schema);
        expect(ajv.validate(schema, smallest)).toBe(true);
        expect(checkAnswer(smallest, request)).toMatchObject({ ok: true });
      }
    },
  );

  test.each<[string, unknown]>([
    ['no review', { reviews: [] }],
    ["a criterion not the unit's", { reviews: [{ criterion: 'sentence/z', verdict: 'pass', findings: [] }] }],
    ['a pass with findings', { reviews: [{ criterion: 'sentence/x', verdict: 'pass', findings: ['Fine.'] }] }],
    ['too many findings', { reviews: [{ criterion: 'sentence/x', verdict: 'warn', findings: Array(MAX_FINDINGS + 1).fill('Fix it.') }] }],
    ['a finding over the bound', { reviews: [{ criterion: 'sentence/x', verdict: 'fail', findings: ['x'.repeat(MAX_FINDING_CHARS + 1)] }] }],
    [
      'two reviews of one criterion',
      {
        reviews: [
          { criterion: 'sentence/x', verdict: 'pass', findings: [] },
          { criterion: 'sentence/x', verdict: 'pass', findings: [] },
        ],
      },
    ],
  ])('an answer with %s is outside the schema, and the check refuses it too', (_title, value) => {
    expect(ajv.validate(reviewAnswerSchema(ids(pair), pair.outcomes, 'anthropic'), value)).toBe(false);
    expect(checkAnswer(value, pair).ok).toBe(false);
  });
});

describe("a note-first pair's tools (Anthropic)", () => {
  const ajv = new Ajv2020({ strict: false });
  const noteTools = [
    { id: 'sentence/x', report: false },
    { id: 'kb/types/note.md', report: false },
    { id: 'critique/instruction', report: true },
  ];
  const first: ReviewRequest = { ...pair, prefix: 'note', noteTools };
  const second: ReviewRequest = { ...first, criteria: [{ id: 'kb/types/note.md', text: 'type spec' }] };

  test("offers one tool per criterion of its note, each the unit-exact schema, the same for every pair of the note, and forces the unit's own", () => {
    const [one, two] = [answerTools(first), answerTools(second)];
    expect(JSON.stringify(one.tools)).toBe(JSON.stringify(two.tools));
    expect(one.tools.map((tool) => (tool as { name: string }).name)).toEqual(noteTools.map((tool) => criterionToolName(tool.id)));
    for (const tool of one.tools as { name: string }[]) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(one.forced).toBe(criterionToolName('sentence/x'));
    expect(two.forced).toBe(criterionToolName('kb/types/note.md'));
    expect(one.forced).not.toBe(two.forced);
    // Each tool's schema is the one a pair of that criterion carries alone.
    const schemas = (one.tools as { input_schema: unknown }[]).map((tool) => tool.input_schema);
    expect(schemas[0]).toEqual(reviewAnswerSchema(['sentence/x'], ['pass', 'warn', 'fail'], 'anthropic'));
    expect(schemas[2]).toEqual(reviewAnswerSchema(['critique/instruction'], ['report'], 'anthropic'));
    // Filled literally, the forced tool's schema gives an answer the check accepts.
    const smallest = literalAnswer(schemas[1]);
    expect(ajv.validate(schemas[1]!, smallest)).toBe(true);
    expect(checkToolCalls([{ name: two.forced, input: smallest }], second)).toMatchObject({ ok: true });
  });

  const launch = (lines: string[]) => ({
    launchId: 'GS-x/unit/1',
    profile: { name: 'p', harness: 'anthropic' as const, flags: [], timeoutMs: 60_000, attempts: 3, env: {} },
    dir: '/launch',
    prompt: ['job = gate-review', 'grouping = pair', 'note = kb/notes/a.md', 'note-input = inputs/note.md', ...lines, 'output = review.md', ''].join('\n'),
    outputs: ['review.md'],
    files: { 'inputs/note.md': 'note', 'inputs/x.md': 'gate', 'inputs/y.md': 'gate' },
  });
  const criterion = (id: string, file: string) => [`criterion = ${id}`, `criterion-input = inputs/${file}.md`];

  test("the prompt's note-tool lines come back as the request's tools, in order, a report criterion's marked", async () => {
    const request = await reviewRequest(
      launch([
        'cache-prefix = note',
        'note-tool = sentence/x',
        'note-report-tool = critique/instruction',
        'note-tool = sentence/y',
        ...criterion('sentence/y', 'y'),
      ]),
    );
    expect(request.noteTools).toEqual([
      { id: 'sentence/x', report: false },
      { id: 'critique/instruction', report: true },
      { id: 'sentence/y', report: false },
    ]);
  });

  test.each<[string, string[]]>([
    ["the unit's criterion is not among them", ['cache-prefix = note', 'note-tool = sentence/x', ...criterion('sentence/y', 'y')]],
    ['the pair is not note-first', ['note-tool = sentence/y', ...criterion('sentence/y', 'y')]],
    [
      'the unit is a bundle',
      ['cache-prefix = note', 'note-tool = sentence/x', 'note-tool = sentence/y', ...criterion('sentence/x', 'x'), ...criterion('sentence/y', 'y')],
    ],
  ])('note-tool lines are refused as bad launch input when %s', async (_title, lines) => {
    await expect(reviewRequest(launch(lines))).rejects.toMatchObject({ type: 'bad-launch-input', message: expect.stringMatching(/note-tool lines/) });
  });

  test('two criteria whose ids differ only in characters a tool name cannot hold get different tools', () => {
    expect(criterionToolName('lens/a-b')).not.toBe(criterionToolName('lens/a_b'));
    expect(criterionToolName(`lens/${'long-'.repeat(30)}`).length).toBeLessThanOrEqual(64);
  });

  test.each<[string, unknown, RegExp]>([
    [
      "another criterion's tool",
      [{ name: criterionToolName('kb/types/note.md'), input: { reviews: [{ criterion: 'kb/types/note.md', verdict: 'pass', findings: [] }] } }],
      /answers through review_kb_types_note_md_\w+ \(criterion kb\/types\/note\.md\), not review_sentence_x_\w+ \(criterion sentence\/x\)/,
    ],
    ['no tool call', [], /no review_sentence_x_\w+ \(criterion sentence\/x\) tool call/],
    ['record_review beside the forced one', [{ name: 'record_review', input: {} }], /answers through record_review, not review_sentence_x/],
    [
      'the forced tool naming another criterion',
      [{ name: criterionToolName('sentence/x'), input: { reviews: [{ criterion: 'sentence/z', verdict: 'pass', findings: [] }] } }],
      /it reviews sentence\/z, not sentence\/x/,
    ],
    [
      'the forced tool with a pass carrying findings',
      [{ name: criterionToolName('sentence/x'), input: { reviews: [{ criterion: 'sentence/x', verdict: 'pass', findings: ['Fine.'] }] } }],
      /passes with findings/,
    ],
  ])('an answer through %s is a malformed answer', (_title, calls, why) => {
    const checked = checkToolCalls(calls, first);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.why).toMatch(why);
  });
});

describe('what an SDK error comes to', () => {
  const input = {
    launchId: 'GS-x/unit/1',
    profile: { name: 'p', harness: 'anthropic', flags: [], timeoutMs: 60_000, attempts: 3, env: {} },
    dir: '/launch',
    prompt: '',
    outputs: ['review.md'],
  } as const;

  test.each([429, 529])('a %s is a usage limit with the reset its headers name', (status) => {
    const error = Object.assign(new Error(`${status} rate limited`), { status, headers: new Headers({ 'retry-after': '60' }) });
    expect(apiFailure({ ...input, outputs: [...input.outputs], profile: { ...input.profile, flags: [] } }, '.launch/try-1', error, now)).toEqual({
      report: {},
      usageLimit: { notice: `${status} rate limited`, resetAt: '2026-12-04T12:01:00.000Z' },
    });
  });

  test('any other status, or no response at all, is a launch-exit the relaunch rule retries', () => {
    for (const error of [Object.assign(new Error('500 boom'), { status: 500, headers: new Headers() }), new Error('Connection error.')]) {
      expect(() => apiFailure({ ...input, outputs: [...input.outputs], profile: { ...input.profile, flags: [] } }, '.launch/try-1', error, now)).toThrow(
        expect.objectContaining({ type: 'launch-exit', nonRetryable: false }),
      );
    }
  });
});
