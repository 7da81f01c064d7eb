import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { RESULTS_DIR, resultPath } from '../../src/review/paths.js';
import { selectPairs } from '../../src/review/status.js';
import { copyToTemp, edit, miniFixture, removeTemps, writeResults } from './helpers.js';

/** Runs `commonplace review status` (the built bin/commonplace.js; `npm run build` first) in `cwd`; execa drops the final newline. */
async function status(args: string[], cwd: string) {
  const run = await runCli(['review', 'status', ...args], { cwd, env: { NO_COLOR: '1' } });
  return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr) };
}

/** The mini KB with every result written, one note body edited, one result deleted and one note deleted. */
async function mixedMini(): Promise<string> {
  const root = await copyToTemp(miniFixture);
  await mkdir(path.join(root, '.git'));
  await writeResults(root, await selectPairs(root, { criteria: ['gates'] }));
  await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('Some prose', 'Some other prose'));
  await edit(root, 'kb/instructions/review-gates/prose/body-gate.md', (text) => text.replace('Read the body.', 'Read the whole body.'));
  await rm(path.join(root, resultPath('kb/notes/claim.md', 'structural/meta-gate')));
  await rm(path.join(root, 'kb/notes/definitions/term.md'));
  return root;
}

afterAll(removeTemps);

describe('commonplace review status', () => {
  describe('run in a subdirectory of a checkout with stale, missing and orphaned results', () => {
    let root: string;
    let run: Awaited<ReturnType<typeof status>>;
    beforeAll(async () => {
      root = await mixedMini();
      run = await status([], path.join(root, 'kb/notes'));
    });

    test('finds the checkout and prints its counts and problems', () => {
      expect(run.stdout).toBe(
        [
          `review status of ${root} (results in ${RESULTS_DIR}/)`,
          'pairs      13  2 notes × 7 gates, 1 type spec, 0 collections, where the criterion applies',
          '  fresh     6',
          '  stale     4  note changed 2, criterion changed 1, both 1',
          '  missing   3',
          '  malformed 0',
          '  by kind      gate 11 (fresh 6, stale 4, missing 1); type 2 (missing 2); collection 0',
          'orphans     6  note gone 6, criterion gone 0, not applicable 0',
          '',
          'problems (1):',
          '  kb/instructions/review-gates/structural/bad-watches.md:7  warn  `watches:` must be a list of title, description, body, frontmatter, found the string `body`; this gate watches the whole note (title, description, body, frontmatter)',
        ].join('\n'),
      );
    });

    test('exits 0 with stale pairs, printing nothing on stderr', () => {
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
    });

    test('keeps its cache in the checkout’s machine-local state, and a second run answers the same', async () => {
      const { existsSync } = await import('node:fs');
      expect(existsSync(path.join(root, '.commonplace', 'cache', 'review-status.json'))).toBe(true);
      const again = await status([], path.join(root, 'kb/notes'));
      expect(again).toEqual(run);
    });
  });

  test('--stale lists every pair that is not fresh, with why', async () => {
    const root = await mixedMini();
    const run = await status(['--stale', '--kb', root], '/');
    expect(run.exitCode).toBe(0);
    const listing = run.stdout.slice(run.stdout.indexOf('not fresh'), run.stdout.indexOf('\n\nproblems'));
    expect(listing).toBe(
      [
        'not fresh (7):',
        '  missing             kb/notes/claim.md  kb/types/note.md (type)',
        '  stale (criterion)   kb/notes/claim.md  prose/body-gate',
        '  missing             kb/notes/claim.md  structural/meta-gate',
        '  missing             kb/notes/plain-note.md  kb/types/note.md (type)',
        '  stale (both)        kb/notes/plain-note.md  prose/body-gate',
        '  stale (note)        kb/notes/plain-note.md  structural/bad-watches',
        '  stale (note)        kb/notes/plain-note.md  structural/whole-gate',
      ].join('\n'),
    );
  });

  test('--orphans lists orphaned results with what is gone', async () => {
    const root = await mixedMini();
    const run = await status(['--orphans', '--kb', root], '/');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(
      `orphaned results (6):\n  note gone        ${RESULTS_DIR}/notes/definitions/term.md/frontmatter/description-gate.md\n      note kb/notes/definitions/term.md does not exist\n`,
    );
  });

  test('--json prints the review-status shape: the counts, and the pairs and orphans the flags ask for', async () => {
    const root = await mixedMini();
    const run = await status(['--json', '--stale', '--orphans', '--gates', 'prose/*', '--kb', root], '/');
    expect(run.exitCode).toBe(0);
    const json = expectShape(run.stdout, 'review-status');
    expect(json['counts']).toMatchObject({
      notes: 2,
      gates: 1,
      pairs: 2,
      fresh: 0,
      stale: 2,
      staleCriterion: 1,
      staleBoth: 1,
      missing: 0,
      orphans: 1,
      outside: 13,
    });
    expect(json['pairs']).toEqual([
      expect.objectContaining({
        note: 'kb/notes/claim.md',
        criterion: 'prose/body-gate',
        status: 'stale',
        staleBecause: 'criterion',
        lens: 'prose',
        watches: ['body'],
        result: expect.objectContaining({ outcome: 'pass', profile: 'fake' }),
      }),
      expect.objectContaining({ note: 'kb/notes/plain-note.md', criterion: 'prose/body-gate', status: 'stale', staleBecause: 'both' }),
    ]);
    expect(json['orphans']).toEqual([
      {
        resultPath: `${RESULTS_DIR}/notes/definitions/term.md/prose/body-gate.md`,
        note: 'kb/notes/definitions/term.md',
        criterion: 'prose/body-gate',
        reason: 'note-gone',
        detail: 'note kb/notes/definitions/term.md does not exist',
      },
    ]);
    expect(json['strays']).toEqual([]);
  });

  test('--json without listing flags prints only counts and problems', async () => {
    const root = await mixedMini();
    const json = expectShape((await status(['--json', '--kb', root], '/')).stdout, 'review-status');
    expect(Object.keys(json).sort()).toEqual(['checkout', 'counts', 'problems', 'resultsDir', 'shape', 'version']);
  });

  test('--prune-orphans --json prints the review-status shape with what it pruned', async () => {
    const root = await mixedMini();
    const json = expectShape((await status(['--prune-orphans', '--json', '--kb', root], '/')).stdout, 'review-status');
    expect(json['pruned']).toMatchObject({ deleted: expect.arrayContaining([`${RESULTS_DIR}/notes/definitions/term.md/prose/body-gate.md`]), kept: [] });
  });

  describe('--prune-orphans', () => {
    let root: string;
    let run: Awaited<ReturnType<typeof status>>;
    let again: Awaited<ReturnType<typeof status>>;
    beforeAll(async () => {
      root = await mixedMini();
      run = await status(['--prune-orphans', '--kb', root], '/');
      again = await status(['--kb', root], '/');
    });

    test('lists the orphans it deletes and exits 0', () => {
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain('orphaned results (6):');
      expect(run.stdout).toContain(`deleted ${RESULTS_DIR}/notes/definitions/term.md/semantic/definition-gate.md\n`);
    });

    test('deletes the orphans and removes the directories they emptied', async () => {
      expect(run.stdout).toContain('pruned 6 orphaned results, removed 6 empty directories');
      expect(await readdir(path.join(root, RESULTS_DIR, 'notes'))).toEqual(['claim.md', 'plain-note.md']);
    });

    test('leaves no orphan for the next status', () => {
      expect(again.stdout).toContain('orphans     0');
    });
  });

  test.each([
    [['--notes', 'kb/notes/nothing.md'], 1, 'commonplace: kb/notes/nothing.md: matches no reviewable note'],
    [['--gates', 'nolens'], 1, 'commonplace: nolens: matches no gate'],
    [['--bogus'], 1, "error: unknown option '--bogus'"],
    [['--notes'], 1, "error: option '--notes <glob>' argument missing"],
  ])('%j exits %i with a one-line message', async (args, exitCode, message) => {
    const root = await mixedMini();
    const run = await status(['--kb', root, ...args], '/');
    expect(run.exitCode).toBe(exitCode);
    expect(run.stderr.split('\n')[0]).toContain(message);
    expect(run.stderr).not.toContain('    at ');
  });

  test('in a Git checkout, the run that makes the cache first makes Git ignore the machine-local state', async () => {
    const { execa } = await import('execa');
    const root = await copyToTemp(miniFixture);
    const git = (...args: string[]) => execa('git', args, { cwd: root });
    await git('init', '-q');
    const first = await status([], root);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toContain('added /.commonplace/ /kb/reports/state/ to .git/info/exclude');
    expect((await git('status', '--porcelain', '--untracked-files=all')).stdout.split('\n').filter((line) => line.includes('.commonplace'))).toEqual([]);
    const second = await status([], root);
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(first.stdout);
  });

  test('outside any checkout it exits 1 and says how to name one', async () => {
    const run = await status([], '/');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('commonplace: / is not inside a Git checkout; run inside a KB checkout or pass --kb DIR');
  });
});
