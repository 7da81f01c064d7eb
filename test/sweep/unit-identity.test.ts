// A unit's answer key (the run's answers, src/activities/review/sweep/answers.ts) and its provider-batch
// request's custom_id are derived from one identity (src/review/unit-identity.ts): the same unit names the
// same ask both ways, and any change to what the unit is handed changes both.
import { sha256 } from '../../src/fs/digest.js';
import { answerKey } from '../../src/runs/answer-key.js';
import type { CapturedUnit } from '../../src/review/sweep-types.js';
import { answerDigest } from '../../src/activities/review/sweep/answers.js';
import { requestCustomId, unitIdentity } from '../../src/review/unit-identity.js';

const captured: CapturedUnit = {
  dir: 'runs/r1/launches/u1/1',
  grouping: 'bundle',
  prompt: 'Review the note against each gate.\n',
  outputs: ['review.md'],
  hashes: { 'structure/title': { note: 'a'.repeat(64), criterion: 'b'.repeat(64) }, 'structure/links': { note: 'c'.repeat(64), criterion: 'd'.repeat(64) } },
  answer: '',
  files: {},
  launchDir: '<state>/review/r1/u1/attempt-1',
};
const profile = 'api-haiku';

/** The key the run's answers keep an ask by (its digest names the answer's file). */
const liveKey = (unit: CapturedUnit, under = profile) => answerKey(unitIdentity(unit, under));
/** The custom_id the submit activity gives the unit's request: from the answer digest the capture recorded. */
const customId = (unit: CapturedUnit, under = profile, round = 1) => requestCustomId(answerDigest(unit, under), round);

test("a unit's custom_id is the digest of its live answer key, with the round", () => {
  expect(customId(captured)).toBe(`cp-${sha256(liveKey(captured)).slice(0, 48)}-1`);
  expect(customId(captured, profile, 2)).toBe(`cp-${sha256(liveKey(captured)).slice(0, 48)}-2`);
  expect(customId(captured)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
});

test("the live key names every part of the unit's identity: each criterion's note and criterion hash, the prompt, the outputs and the profile", () => {
  expect(unitIdentity(captured, profile)).toEqual({
    prompt: captured.prompt,
    inputs: {
      'note structure/title': 'a'.repeat(64),
      'structure/title': 'b'.repeat(64),
      'note structure/links': 'c'.repeat(64),
      'structure/links': 'd'.repeat(64),
    },
    outputs: ['review.md'],
    profile,
  });
});

test.each<[string, CapturedUnit, string]>([
  ['another prompt', { ...captured, prompt: 'Review the note.\n' }, profile],
  [
    "a note's watched parts changed",
    { ...captured, hashes: { ...captured.hashes, 'structure/title': { note: 'e'.repeat(64), criterion: 'b'.repeat(64) } } },
    profile,
  ],
  ['a criterion changed', { ...captured, hashes: { ...captured.hashes, 'structure/links': { note: 'c'.repeat(64), criterion: 'f'.repeat(64) } } }, profile],
  ['a criterion fewer', { ...captured, hashes: { 'structure/title': captured.hashes['structure/title']! } }, profile],
  ['other outputs', { ...captured, outputs: ['review.md', 'notes.md'] }, profile],
  ['another profile', captured, 'api-sonnet'],
])('%s: the live key and the custom_id both change, and still name the same unit', (_change, changed, under) => {
  expect(liveKey(changed, under)).not.toBe(liveKey(captured));
  expect(customId(changed, under)).not.toBe(customId(captured));
  expect(customId(changed, under)).toBe(`cp-${sha256(liveKey(changed, under)).slice(0, 48)}-1`);
});

test('what does not name the ask changes neither: the launch directory, the grouping, the order of the hashes', () => {
  const moved: CapturedUnit = {
    ...captured,
    dir: 'runs/r1/launches/u1/2',
    grouping: 'pair',
    hashes: Object.fromEntries(Object.entries(captured.hashes).reverse()),
  };
  expect(liveKey(moved)).toBe(liveKey(captured));
  expect(customId(moved)).toBe(customId(captured));
});
