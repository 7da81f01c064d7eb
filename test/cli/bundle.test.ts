/**
 * How a command starts (docs/cli.md): a client command runs from the bundle dist/cli.cjs with its V8 code
 * cache, a worker command (`worker`, `dev`, `upgrade`) from the compiled modules, and both give the same
 * answers. A resolve hook (test/helpers/load-trace.mjs) records which modules each process loads.
 */
import { execa } from 'execa';
import { copyFile, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';

const root = packageRoot();
// No Temporal server listens here: a command that needs one says so in one line.
const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

/** The module URLs a CLI process resolved through the module loader (the bundle's own modules are inside one file). */
async function loadedModules(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const trace = join(await scratch(), 'trace.txt');
  const result = await execa('node', ['--import', join(root, 'test', 'helpers', 'load-trace.mjs'), cliPath, ...args], {
    reject: false,
    env: { ...offline, COMMONPLACE_LOAD_TRACE: trace, ...env },
  });
  expect(result.exitCode).toBe(0);
  return (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
}

test('a client command runs from the bundle; a worker command, and any with COMMONPLACE_CLI_BUNDLE=0, from the modules', async () => {
  const fromModules = (urls: string[]) => urls.some((url) => url.endsWith('/dist/src/client/main.js'));
  expect(fromModules(await loadedModules(['review', 'status', '--help']))).toBe(false);
  expect(fromModules(await loadedModules(['--address', '127.0.0.1:1', 'quota', '--help']))).toBe(false);
  expect(fromModules(await loadedModules(['worker', '--help']))).toBe(true);
  expect(fromModules(await loadedModules(['--namespace', 'x', 'dev', '--help']))).toBe(true);
  expect(fromModules(await loadedModules(['upgrade', 'check', '--help']))).toBe(true);
  expect(fromModules(await loadedModules(['review', 'status', '--help'], { COMMONPLACE_CLI_BUNDLE: '0' }))).toBe(true);
});

test('the bundle answers as the modules do: help, version, a validation, a refused input, an unreachable server', async () => {
  const checkout = await corpusCopy();
  const commands = [
    ['--help'],
    ['--version'],
    ['review', 'run', 'gates', '--help'],
    ['validate', '--kb', checkout, '--json'],
    ['review', 'run', 'gates', '--kb', checkout, '--profile', 'nosuch'],
    ['review', 'status', '--kb', checkout, '--json'],
    ['quota'],
  ];
  for (const command of commands) {
    const bundled = await runCli(command, { env: offline });
    const modules = await runCli(command, { env: { ...offline, COMMONPLACE_CLI_BUNDLE: '0' } });
    expect({ command, exitCode: bundled.exitCode, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual({
      command,
      exitCode: modules.exitCode,
      stdout: modules.stdout,
      stderr: modules.stderr,
    });
  }
});

test('a worker command reached inside the bundle says where it runs from', async () => {
  const script = `require(${JSON.stringify(join(root, 'dist', 'cli.cjs'))}).main(['node', 'commonplace', 'worker']).catch((error) => { console.error(error.message); process.exitCode = 1; });`;
  const result = await execa('node', ['-e', script], { reject: false, env: offline });
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain('worker-run.js runs from the compiled modules (bin/commonplace.js), not from dist/cli.cjs');
});

test('a code cache V8 refuses is written anew once the command has run, and the command is not changed by it', async () => {
  // A copy of the package's CLI (its bin, bundle, manifest and packages), so the real cache is not touched.
  const copy = await scratch();
  await mkdir(join(copy, 'bin'));
  await mkdir(join(copy, 'dist'));
  await copyFile(join(root, 'package.json'), join(copy, 'package.json'));
  await copyFile(join(root, 'bin', 'commonplace.js'), join(copy, 'bin', 'commonplace.js'));
  await copyFile(join(root, 'dist', 'cli.cjs'), join(copy, 'dist', 'cli.cjs'));
  await symlink(join(root, 'node_modules'), join(copy, 'node_modules'));
  const cache = join(copy, 'dist', 'cli.cjs.cache');
  const garbage = Buffer.from('not a V8 code cache');
  await writeFile(cache, garbage);
  const version = async () => execa('node', [join(copy, 'bin', 'commonplace.js'), '--version'], { reject: false });
  const first = await version();
  expect({ exitCode: first.exitCode, stdout: first.stdout }).toEqual({
    exitCode: 0,
    stdout: JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version,
  });
  const written = await readFile(cache);
  expect(written.length).toBeGreaterThan(10_000);
  expect(written.equals(garbage)).toBe(false);
  // Read by the next start: it answers the same and keeps the cache it accepted (a rewrite is a new file renamed in).
  const accepted = (await stat(cache)).ino;
  const second = await version();
  expect({ exitCode: second.exitCode, stdout: second.stdout }).toEqual({ exitCode: first.exitCode, stdout: first.stdout });
  expect((await stat(cache)).ino).toBe(accepted);
});
