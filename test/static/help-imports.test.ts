/**
 * `--help` answers at once: building the command tree loads commander and the command modules'
 * registrations only; the Temporal SDK, the validator and the KB readers load in the action that
 * uses them. A resolve hook records every module the CLI process loads for each help page.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { runModules } from '../helpers/cli.js';
import { buildProgram } from '../../src/client/main.js';

const HEAVY = ['@temporalio/', '/ajv/', '/ajv-formats/', '/execa/', '/zod/', '/yaml/', '/protobufjs/', '/picomatch/'];

type CommandNode = { name(): string; commands: readonly CommandNode[] };

/** Every command's path in the CLI's tree, and whether it is a leaf (a command that does work). */
function helpPages(): Array<{ page: string[]; leaf: boolean }> {
  const pages: Array<{ page: string[]; leaf: boolean }> = [{ page: [], leaf: false }];
  const walk = (command: CommandNode, path: string[]) => {
    for (const sub of command.commands) {
      if (sub.name() === 'help') continue;
      const page = [...path, sub.name()];
      pages.push({ page, leaf: sub.commands.length === 0 });
      walk(sub, page);
    }
  };
  walk(buildProgram() as unknown as CommandNode, []);
  return pages;
}

const HELP_PAGES = helpPages();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'help-imports-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test.each(HELP_PAGES.map(({ page, leaf }) => [page.join(' ') || '(top)', page, leaf] as const))(
  'commonplace %s --help loads no heavy module (and a command shows an example)',
  async (name, page, leaf) => {
    const trace = join(dir, `${name.replace(/\W+/g, '-')}.txt`);
    // From the modules: the bundle is one file to the resolver. What a help page evaluates in the bundle is what it
    // loads here — esbuild keeps a module reached only through import() in a wrapper run at that import.
    const result = await runModules([...page, '--help'], { env: { COMMONPLACE_LOAD_TRACE: trace } }, [
      '--import',
      join(packageRoot(), 'test', 'helpers', 'load-trace.mjs'),
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: commonplace');
    if (leaf) expect(result.stdout).toMatch(/^Examples?:/m);
    expect(result.stdout).not.toMatch(/\(default: [^)]*\) \(default:/);
    const loaded = (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.some((url) => url.includes('/commander/'))).toBe(true);
    expect(loaded.filter((url) => HEAVY.some((heavy) => url.includes(heavy)))).toEqual([]);
  },
);
