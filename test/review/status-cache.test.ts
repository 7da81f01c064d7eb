import { existsSync } from 'node:fs';
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { resultPath } from '../../src/review/paths.js';
import { reviewStatus, selectPairs, type ReviewStatus } from '../../src/review/status.js';
import { STATUS_CACHE_FILE, STATUS_CACHE_FORMAT } from '../../src/review/status-cache.js';
import { copyToTemp, edit, miniFixture, removeTemps, writeResults } from './helpers.js';

afterAll(removeTemps);

const all = ['gates', 'types', 'collections'] as const;
/** A clock a minute ahead: every file of the test is old enough to keep, so the cache is used from the second run on. */
const later = () => ({ now: Date.now() + 60_000 });
const cached = (root: string) => reviewStatus(root, { criteria: [...all], cache: later() });
const uncached = (root: string) => reviewStatus(root, { criteria: [...all] });
const cacheFile = (root: string) => path.join(root, ...STATUS_CACHE_FILE.split('/'));
const readCache = async (root: string) =>
  JSON.parse(await readFile(cacheFile(root), 'utf8')) as {
    format: string;
    strings: string[];
    notes: unknown[][];
    dirs: [string, unknown, string[], string[], (unknown[] | null)[]][];
  };
/** What a status says, without the checkout root. */
const view = (status: ReviewStatus) => ({
  pairs: status.pairs,
  orphans: status.orphans,
  strays: status.strays,
  problems: status.problems,
  counts: status.counts,
});

/** A copy of the mini KB with a result for every pair (all three kinds), and a warm cache. */
async function warmMini(): Promise<string> {
  const root = await copyToTemp(miniFixture);
  await writeResults(root, await selectPairs(root, { criteria: [...all] }));
  await cached(root);
  return root;
}

const claimResult = resultPath('kb/notes/claim.md', 'frontmatter/title-gate');

describe('the status cache', () => {
  test('a warm cache gives the status the files give, and holds a row for every result and note', async () => {
    const root = await warmMini();
    const warm = await cached(root);
    expect(view(warm)).toEqual(view(await uncached(root)));
    expect(warm.counts.fresh).toBe(warm.counts.pairs);
    const kept = await readCache(root);
    expect(kept.format).toBe(STATUS_CACHE_FORMAT);
    const rows = kept.dirs.flatMap(([, , , , records]) => records).filter((row) => row !== null);
    expect(rows).toHaveLength(warm.counts.pairs);
    expect(kept.notes.map((row) => row[10])).toEqual(expect.arrayContaining([...new Set(warm.pairs.map((pair) => pair.note))]));
  });

  test('a kept record is used while the file’s stat is unchanged, and re-read once its mtime moves', async () => {
    const root = await warmMini();
    // Tamper with the kept outcome of one result: the cache, not the file, now says `fail`.
    const kept = await readCache(root);
    const dir = kept.dirs.find(([where]) => where === path.posix.dirname(claimResult));
    const position = dir?.[3].indexOf(path.posix.basename(claimResult)) ?? -1;
    const row = dir?.[4][position] as unknown[];
    kept.strings.push('fail');
    row[6] = kept.strings.length - 1;
    await writeFile(cacheFile(root), JSON.stringify(kept));
    const pair = (status: ReviewStatus) => status.pairs.find((candidate) => candidate.resultPath === claimResult);
    expect(pair(await cached(root))?.result?.outcome).toBe('fail');
    // The same bytes with a new mtime: the stat differs, so the file is read again.
    const { mtime } = await stat(path.join(root, claimResult));
    await utimes(path.join(root, claimResult), mtime, new Date(mtime.getTime() - 5000));
    expect(pair(await cached(root))?.result?.outcome).toBe('pass');
  });

  test.each([
    ['not JSON', (text: string) => text.slice(0, text.length / 2)],
    ['another format', (text: string) => text.replace(STATUS_CACHE_FORMAT, 'commonplace-review-status-cache/0')],
    ['rows of the wrong shape', (text: string) => JSON.stringify({ ...JSON.parse(text), dirs: [['x', null, 'nope', [], []]] })],
    ['kept values of the wrong type', (text: string) => text.replace(/"\+/g, '"?').replace(/\[(\d+),/g, '["$1",')],
  ])('a corrupt cache (%s) is rebuilt from the files', async (_what, corrupt) => {
    const root = await warmMini();
    await writeFile(cacheFile(root), corrupt(await readFile(cacheFile(root), 'utf8')));
    const status = await cached(root);
    expect(view(status)).toEqual(view(await uncached(root)));
    expect(status.counts.fresh).toBe(status.counts.pairs);
    expect((await readCache(root)).format).toBe(STATUS_CACHE_FORMAT);
    expect(view(await cached(root))).toEqual(view(status));
  });

  test('a result file edited in place to the same size is seen', async () => {
    const root = await warmMini();
    const before = await stat(path.join(root, claimResult));
    await edit(root, claimResult, (text) => text.replace(/^note_sha256: (.)/m, (_line, first: string) => `note_sha256: ${first === '0' ? '1' : '0'}`));
    const after = await stat(path.join(root, claimResult));
    expect([after.size, after.ino]).toEqual([before.size, before.ino]);
    const status = await cached(root);
    expect(status.pairs.filter((pair) => pair.status !== 'fresh').map((pair) => [pair.resultPath, pair.staleBecause])).toEqual([[claimResult, 'note']]);
  });

  test('an edited note is seen, through the kept note facts', async () => {
    const root = await warmMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('Some prose', 'Some other prose'));
    const status = await cached(root);
    expect(view(status)).toEqual(view(await uncached(root)));
    expect(status.pairs.filter((pair) => pair.status === 'stale').map((pair) => pair.criterion)).toEqual(
      expect.arrayContaining(['prose/body-gate', 'structural/whole-gate']),
    );
    expect(status.pairs.filter((pair) => pair.status === 'stale').every((pair) => pair.note === 'kb/notes/plain-note.md' && pair.staleBecause === 'note')).toBe(
      true,
    );
  });

  test('a note edited in place to the same size is seen', async () => {
    const root = await warmMini();
    const note = path.join(root, 'kb/notes/plain-note.md');
    const before = await stat(note);
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('Some prose', 'Some PROSE'));
    const after = await stat(note);
    expect([after.size, after.ino]).toEqual([before.size, before.ino]);
    const status = await cached(root);
    expect(view(status)).toEqual(view(await uncached(root)));
    expect(status.pairs.filter((pair) => pair.status === 'stale').map((pair) => pair.criterion)).toEqual(
      expect.arrayContaining(['prose/body-gate', 'structural/whole-gate']),
    );
  });

  test('a deleted result file is counted missing', async () => {
    const root = await warmMini();
    await rm(path.join(root, claimResult));
    const status = await cached(root);
    expect(status.counts.missing).toBe(1);
    expect(status.pairs.find((pair) => pair.resultPath === claimResult)?.status).toBe('missing');
    expect(view(status)).toEqual(view(await uncached(root)));
  });

  test('a result added beside kept ones is read (its directory changed)', async () => {
    const root = await copyToTemp(miniFixture);
    const pairs = await selectPairs(root, { criteria: [...all] });
    const [first, ...rest] = pairs;
    await writeResults(root, rest);
    expect((await cached(root)).counts.missing).toBe(1);
    await writeResults(root, first === undefined ? [] : [first]);
    expect((await cached(root)).counts.missing).toBe(0);
  });

  test('status answers, from the files, when the cache cannot be written (its state directory is a file)', async () => {
    const root = await copyToTemp(miniFixture);
    await writeResults(root, await selectPairs(root, { criteria: [...all] }));
    // The state directory is a file: nothing can be made under it (whoever runs the test, root included).
    await writeFile(path.join(root, '.commonplace'), 'not a directory\n');
    const status = await cached(root);
    expect(status.counts.fresh).toBe(status.counts.pairs);
    expect(view(status)).toEqual(view(await uncached(root)));
    expect(await readFile(path.join(root, '.commonplace'), 'utf8')).toBe('not a directory\n');
  });

  test('with the real clock, results written just now are not kept, so an edit in the same instant is still seen', async () => {
    const root = await copyToTemp(miniFixture);
    await writeResults(root, await selectPairs(root, { criteria: [...all] }));
    await reviewStatus(root, { criteria: [...all], cache: true });
    const kept = existsSync(cacheFile(root)) ? await readCache(root) : { dirs: [] };
    expect(kept.dirs.flatMap(([, , , , records]) => records).filter((row) => row !== null)).toEqual([]);
    await edit(root, claimResult, (text) => text.replace(/^note_sha256: (.)/m, (_line, first: string) => `note_sha256: ${first === '0' ? '1' : '0'}`));
    const status = await reviewStatus(root, { criteria: [...all], cache: true });
    expect(status.pairs.find((pair) => pair.resultPath === claimResult)).toMatchObject({ status: 'stale', staleBecause: 'note' });
  });

  test('without the option no cache is read or written', async () => {
    const root = await copyToTemp(miniFixture);
    await writeResults(root, await selectPairs(root, { criteria: [...all] }));
    await uncached(root);
    expect(existsSync(cacheFile(root))).toBe(false);
  });
});
