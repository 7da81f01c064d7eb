/**
 * The client's rooms (src/client/, the operator CLI): one room per surface — analysis/, operate/, and
 * review's own rooms review/sweep/, review/edit/, review/compare/, review/inspect/, review/decide/ —
 * with shared/ for what every command uses and review/shared/ for what several review rooms use; main.ts
 * and review/review.ts (the `review` command's registration) above them. Imports run one way: registration → the
 * command's run module → shared parts; never back, never into another command's run module.
 *
 * A **run module** is a file named `<command>-run.ts`: the work of one command, loaded (lazily) when
 * the command runs. Its **registration** is `<command>.ts` beside it: the options and help, which
 * `--help` loads. A module several commands need is a named shared module (review/shared/sweep-start.ts,
 * review/edit/edit-start.ts, operate/worker-start.ts, shared/…), never another command's run module.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { importGraph, type Graph } from '../helpers/import-graph.js';

const root = packageRoot();
const CLI = 'src/client/';
const REVIEW_ROOMS = ['review/sweep', 'review/edit', 'review/compare', 'review/inspect', 'review/decide'];
const COMMAND_ROOMS = ['analysis', 'operate', ...REVIEW_ROOMS];
/** Registrations above the rooms: they may import any room's registrations. */
const PARENTS = ['main', 'review'];
const ROOMS = [...COMMAND_ROOMS, 'review/shared', 'shared'];
/** A CLI file past this many lines is doing more than one thing. */
const MAX_LINES = 300;

const isRunModule = (file: string) => file.startsWith(CLI) && file.endsWith('-run.ts');
/** The registration a run module belongs to: `review/sweep/review-gates-run.ts` → `review/sweep/review-gates.ts`. */
const registrationOf = (runModule: string) => runModule.replace(/-run\.ts$/, '.ts');
/**
 * The room of a client file (`analysis`, `review/sweep`), `main` for src/client/main.ts, `review` for
 * src/client/review/review.ts, undefined outside the client.
 */
const roomOf = (file: string): string | undefined => {
  if (!file.startsWith(CLI)) return undefined;
  const parts = file.slice(CLI.length).split('/');
  const [first = '', second = ''] = parts;
  if (parts.length === 1) return first.replace(/\.ts$/, '');
  if (first === 'review') return parts.length === 2 ? 'review' : `review/${second}`;
  return first;
};

/** The rooms a room may import besides itself: every command room shared/, a review room review/shared/ too. */
const allowedFrom = (room: string): string[] => {
  if (room === 'shared') return [];
  if (room === 'review/shared') return ['shared'];
  return room.startsWith('review/') ? ['review/shared', 'shared'] : ['shared'];
};

/** Edges into a run module from anything but its own registration. */
function foreignRunImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => isRunModule(target) && registrationOf(target) !== file).map((target) => `${file} → ${target}`),
  );
}

/**
 * Edges from one room into another it may not use: a command room into another command room, a shared
 * part into a command room, review/shared/ or shared/ into a room above them.
 */
function crossRoomImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = roomOf(file);
    if (from === undefined || PARENTS.includes(from)) return [];
    return targets
      .filter((target) => {
        const to = roomOf(target);
        if (to === undefined || to === from) return false;
        return !allowedFrom(from).includes(to);
      })
      .map((target) => `${file} → ${target}`);
  });
}

describe('the rooms of the CLI', () => {
  let graph: Graph;
  beforeAll(async () => {
    graph = await importGraph(join(root, 'src'));
  });

  test('the rules see what they forbid: a run module imported by another command, a room reaching into another', () => {
    const bad: Graph = new Map([
      ['src/client/review/sweep/review-gates.ts', ['src/client/review/sweep/review-gates-run.ts']],
      ['src/client/review/sweep/review-gates-run.ts', ['src/client/shared/errors.ts', 'src/client/review/shared/sweep-start.ts']],
      ['src/client/review/decide/review-approve-run.ts', ['src/client/review/sweep/review-gates-run.ts', 'src/client/analysis/analysis-format.ts']],
      ['src/client/review/edit/edit-start.ts', ['src/client/review/sweep/sweep-request.ts']],
      ['src/client/review/shared/sweep-format.ts', ['src/client/review/edit/edit-start.ts', 'src/client/shared/follow.ts']],
      ['src/client/analysis/analysis-run.ts', ['src/client/review/shared/sweep-format.ts']],
      ['src/client/shared/follow.ts', ['src/client/review/shared/sweep-format.ts']],
    ]);
    expect(foreignRunImports(bad)).toEqual(['src/client/review/decide/review-approve-run.ts → src/client/review/sweep/review-gates-run.ts']);
    expect(crossRoomImports(bad)).toEqual([
      'src/client/review/decide/review-approve-run.ts → src/client/review/sweep/review-gates-run.ts',
      'src/client/review/decide/review-approve-run.ts → src/client/analysis/analysis-format.ts',
      'src/client/review/edit/edit-start.ts → src/client/review/sweep/sweep-request.ts',
      'src/client/review/shared/sweep-format.ts → src/client/review/edit/edit-start.ts',
      'src/client/analysis/analysis-run.ts → src/client/review/shared/sweep-format.ts',
      'src/client/shared/follow.ts → src/client/review/shared/sweep-format.ts',
    ]);
  });

  test('every client module is main.ts, review/review.ts or lives in a room', () => {
    const cli = [...graph.keys()].filter((file) => file.startsWith(CLI));
    expect(cli.length).toBeGreaterThan(50);
    expect(cli.filter((file) => !PARENTS.includes(roomOf(file)!) && !ROOMS.includes(roomOf(file)!))).toEqual([]);
    expect(REVIEW_ROOMS.filter((room) => !cli.some((file) => roomOf(file) === room))).toEqual([]);
  });

  test("no CLI module imports another command's run module: only its registration loads it", () => {
    const runModules = [...graph.keys()].filter(isRunModule);
    expect(runModules.length).toBeGreaterThan(15);
    expect(runModules.filter((file) => !graph.has(registrationOf(file)))).toEqual([]);
    expect(foreignRunImports(graph)).toEqual([]);
  });

  test('a command room imports only itself and the shared parts; a shared part imports no command room', () => {
    expect(crossRoomImports(graph)).toEqual([]);
  });

  test(`no CLI module is over ${MAX_LINES} lines`, async () => {
    const cli = [...graph.keys()].filter((file) => file.startsWith(CLI));
    const long: string[] = [];
    for (const file of cli) {
      const lines = (await readFile(join(root, file), 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) long.push(`${file}: ${lines} lines`);
    }
    expect(long).toEqual([]);
  });
});
