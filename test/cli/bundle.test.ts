/**
 * How a command starts (docs/cli.md): every command runs from the bundle dist/cli.cjs, which answers as the
 * compiled modules under dist/src/ do, and a command writes nothing into the package.
 */
import { execa } from 'execa';
import { copyFile, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { runCli, runModules } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';

const root = packageRoot();
// No Temporal server listens here: a command that needs one says so in one line.
const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

test('a client command and a worker command both run from dist/cli.cjs (read from the stack trace --debug prints)', async () => {
  const state = await scratch();
  for (const args of [['quota'], ['--namespace', 'x', 'worker', '--state', state]]) {
    const result = await runCli(['--debug', ...args], { env: offline });
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toMatch(/^commonplace: cannot reach Temporal at 127\.0\.0\.1:1/m);
    const frames = String(result.stderr).match(/dist\/(cli\.cjs|src\/)/g) ?? [];
    expect({ args, ranFrom: [...new Set(frames)] }).toEqual({ args, ranFrom: ['dist/cli.cjs'] });
  }
});

test('the bundle answers as the modules do: help, version, a validation, a refused input, an unreachable server', async () => {
  const checkout = await corpusCopy();
  const state = await scratch();
  const commands = [
    ['worker', '--help'],
    ['upgrade', 'check', '--help'],
    ['worker', '--state', state],
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
    const modules = await runModules(command, { env: offline });
    expect({ command, exitCode: bundled.exitCode, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual({
      command,
      exitCode: modules.exitCode,
      stdout: modules.stdout,
      stderr: modules.stderr,
    });
  }
});

test('a command writes nothing into the package directory', async () => {
  // A copy of the package's CLI (its bin, bundle, manifest and packages), so that what is there is known.
  const copy = await scratch();
  await mkdir(join(copy, 'bin'));
  await mkdir(join(copy, 'dist'));
  await copyFile(join(root, 'package.json'), join(copy, 'package.json'));
  await copyFile(join(root, 'bin', 'commonplace.js'), join(copy, 'bin', 'commonplace.js'));
  await copyFile(join(root, 'dist', 'cli.cjs'), join(copy, 'dist', 'cli.cjs'));
  await symlink(join(root, 'node_modules'), join(copy, 'node_modules'));
  const listing = () => Promise.all(['.', 'bin', 'dist'].map(async (dir) => (await readdir(join(copy, dir))).sort()));
  const before = await listing();
  const elsewhere = await scratch();
  const runs = [
    { args: ['--help'], exitCode: 0 },
    { args: ['--version'], exitCode: 0 },
    { args: ['validate', '--kb', '.'], exitCode: 1 },
    { args: ['review', 'status', '--kb', '.'], exitCode: 1 },
    { args: ['quota'], exitCode: 1 },
  ];
  for (const { args, exitCode } of runs) {
    const result = await execa('node', [join(copy, 'bin', 'commonplace.js'), ...args], { reject: false, env: offline, cwd: elsewhere });
    expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode });
  }
  expect(await listing()).toEqual(before);
});
