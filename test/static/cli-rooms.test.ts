/**
 * The CLI's rooms (src/cli/): one room per surface — analysis/, review/, operate/ — and shared/ for
 * what several commands use, with main.ts above them. Imports run one way: registration → the
 * command's run module → shared parts; never back, never into another command's run module.
 *
 * A **run module** is a file named `<command>-run.ts`: the work of one command, loaded (lazily) when
 * the command runs. Its **registration** is `<command>.ts` beside it: the options and help, which
 * `--help` loads. A module several commands need is a named shared module (review/sweep-start.ts,
 * review/edit-start.ts, operate/worker-start.ts, shared/…), never another command's run module.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { importGraph, type Graph } from '../helpers/import-graph.js';

const root = packageRoot();
const CLI = 'src/cli/';
const COMMAND_ROOMS = ['analysis', 'review', 'operate'];
const ROOMS = [...COMMAND_ROOMS, 'shared'];
/** A CLI file past this many lines is doing more than one thing. */
const MAX_LINES = 300;

const isRunModule = (file: string) => file.startsWith(CLI) && file.endsWith('-run.ts');
/** The registration a run module belongs to: `review/review-gates-run.ts` → `review/review-gates.ts`. */
const registrationOf = (runModule: string) => runModule.replace(/-run\.ts$/, '.ts');
/** The room of a CLI file (`review`), `main` for src/cli/main.ts, undefined outside the CLI. */
const roomOf = (file: string): string | undefined => {
  if (!file.startsWith(CLI)) return undefined;
  const rest = file.slice(CLI.length);
  return rest.includes('/') ? rest.split('/')[0] : rest.replace(/\.ts$/, '');
};

/** Edges into a run module from anything but its own registration. */
function foreignRunImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) => targets.filter((target) => isRunModule(target) && registrationOf(target) !== file).map((target) => `${file} → ${target}`));
}

/** Edges from one room into another it may not use: a command room into another command room, shared/ into any command room or main. */
function crossRoomImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = roomOf(file);
    if (from === undefined || from === 'main') return [];
    return targets
      .filter((target) => {
        const to = roomOf(target);
        if (to === undefined || to === from) return false;
        return from === 'shared' || to !== 'shared';
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
      ['src/cli/review/review-gates.ts', ['src/cli/review/review-gates-run.ts']],
      ['src/cli/review/review-gates-run.ts', ['src/cli/shared/errors.ts']],
      ['src/cli/review/review-approve-run.ts', ['src/cli/review/review-gates-run.ts', 'src/cli/analysis/analysis-format.ts']],
      ['src/cli/shared/follow.ts', ['src/cli/review/sweep-format.ts']],
    ]);
    expect(foreignRunImports(bad)).toEqual(['src/cli/review/review-approve-run.ts → src/cli/review/review-gates-run.ts']);
    expect(crossRoomImports(bad)).toEqual(['src/cli/review/review-approve-run.ts → src/cli/analysis/analysis-format.ts', 'src/cli/shared/follow.ts → src/cli/review/sweep-format.ts']);
  });

  test('every CLI module is main.ts or lives in a room: analysis/, review/, operate/ or shared/', () => {
    const cli = [...graph.keys()].filter((file) => file.startsWith(CLI));
    expect(cli.length).toBeGreaterThan(50);
    expect(cli.filter((file) => file !== 'src/cli/main.ts' && !ROOMS.includes(roomOf(file)!))).toEqual([]);
  });

  test('no CLI module imports another command\'s run module: only its registration loads it', () => {
    const runModules = [...graph.keys()].filter(isRunModule);
    expect(runModules.length).toBeGreaterThan(15);
    expect(runModules.filter((file) => !graph.has(registrationOf(file)))).toEqual([]);
    expect(foreignRunImports(graph)).toEqual([]);
  });

  test('a command room imports only itself and shared/; shared/ imports no command room', () => {
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
