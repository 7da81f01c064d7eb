/**
 * How a command starts (docs/cli.md): a client command runs from the bundle dist/cli.cjs, a worker command
 * (`worker`, `dev`, `upgrade`) from dist/worker.cjs, each with its V8 code cache, and the bundles answer as
 * the compiled modules do.
 */
import { execa } from 'execa';
import { isAscii } from 'node:buffer';
import { copyFile, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import protobuf from 'protobufjs/light.js';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';

const root = packageRoot();
// No Temporal server listens here: a command that needs one says so in one line.
const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

/** Where a command ran from, read from the stack trace `--debug` prints with its one-line failure. */
async function ranFrom(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(['--debug', ...args], { env: { ...offline, ...env } });
  expect(result.exitCode).toBe(1);
  expect(String(result.stderr)).toMatch(/^commonplace: cannot reach Temporal at 127\.0\.0\.1:1/m);
  const frames = String(result.stderr).match(/dist\/(cli\.cjs|worker\.cjs|src\/)/g) ?? [];
  expect(new Set(frames).size).toBe(1);
  return frames[0] ?? 'no frame';
}

test('a client command runs from dist/cli.cjs, a worker command from dist/worker.cjs, and any from the modules with COMMONPLACE_CLI_BUNDLE=0', async () => {
  const state = await scratch();
  expect(await ranFrom(['quota'])).toBe('dist/cli.cjs');
  expect(await ranFrom(['--address', '127.0.0.1:1', 'review', 'schedule', 'list'])).toBe('dist/cli.cjs');
  expect(await ranFrom(['worker', '--state', state])).toBe('dist/worker.cjs');
  expect(await ranFrom(['--namespace', 'x', 'worker', '--state', state])).toBe('dist/worker.cjs');
  expect(await ranFrom(['quota'], { COMMONPLACE_CLI_BUNDLE: '0' })).toBe('dist/src/');
  expect(await ranFrom(['worker', '--state', state], { COMMONPLACE_CLI_BUNDLE: '0' })).toBe('dist/src/');
});

test('the bundles answer as the modules do: help, version, a validation, a refused input, an unreachable server', async () => {
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
    const modules = await runCli(command, { env: { ...offline, COMMONPLACE_CLI_BUNDLE: '0' } });
    expect({ command, exitCode: bundled.exitCode, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual({
      command,
      exitCode: modules.exitCode,
      stdout: modules.stdout,
      stderr: modules.stderr,
    });
  }
});

test('each bundle is ASCII, so a start reads it as one-byte text: what esbuild leaves as written (regular expressions, comments) is escaped', async () => {
  for (const bundle of ['cli.cjs', 'worker.cjs']) {
    const bytes = await readFile(join(root, 'dist', bundle));
    expect({ bundle, ascii: isAscii(bytes) }).toEqual({ bundle, ascii: true });
  }
  // claude's usage-limit pattern, written with a curly apostrophe (src/harness/executors/claude.ts), is in the bundle as
  // its escape, and matches the notice it matches in the modules.
  expect(await readFile(join(root, 'dist', 'src', 'harness', 'executors', 'claude.js'), 'utf8')).toContain("/you['’]ve hit your (?:usage |session ");
  const bundled = await readFile(join(root, 'dist', 'worker.cjs'), 'latin1');
  const written = /\/you\['\\u2019\]ve hit your \(\?:usage \|session [^\n]*?limit\/i/.exec(bundled)?.[0];
  expect(written).toBeDefined();
  const pattern = new Function(`return ${written}`)() as RegExp;
  expect(pattern.test('You’ve hit your limit · resets 1:30am (Asia/Dhaka)')).toBe(true);
});

test('a worker command reached inside the bundle says where it runs from', async () => {
  const script = `require(${JSON.stringify(join(root, 'dist', 'cli.cjs'))}).main(['node', 'commonplace', 'worker']).catch((error) => { console.error(error.message); process.exitCode = 1; });`;
  const result = await execa('node', ['-e', script], { reject: false, env: offline });
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain('worker-run.js runs from dist/worker.cjs (bin/commonplace.js), not from dist/cli.cjs');
});

/** A copy of the package's CLI (its bin, client bundle, manifest and packages), so the real cache is not touched. */
async function cliCopy(): Promise<{ run(args: string[], cwd?: string): ReturnType<typeof execa>; cache: string }> {
  const copy = await scratch();
  await mkdir(join(copy, 'bin'));
  await mkdir(join(copy, 'dist'));
  await copyFile(join(root, 'package.json'), join(copy, 'package.json'));
  await copyFile(join(root, 'bin', 'commonplace.js'), join(copy, 'bin', 'commonplace.js'));
  await copyFile(join(root, 'dist', 'cli.cjs'), join(copy, 'dist', 'cli.cjs'));
  await symlink(join(root, 'node_modules'), join(copy, 'node_modules'));
  return {
    run: (args, cwd) => execa('node', [join(copy, 'bin', 'commonplace.js'), ...args], { reject: false, env: offline, ...(cwd && { cwd }) }),
    cache: join(copy, 'dist', 'cli.cjs.cache'),
  };
}

/** The commands a cache names on its first line. */
async function cachedCommands(cache: string): Promise<unknown> {
  const file = await readFile(cache);
  return JSON.parse(file.subarray(0, file.indexOf(10)).toString('utf8'));
}

test('a code cache V8 refuses is written anew once the command has run, and the command is not changed by it', async () => {
  const { run, cache } = await cliCopy();
  const garbage = Buffer.from('["help"]\nnot a V8 code cache');
  await writeFile(cache, garbage);
  const first = await run(['--version']);
  expect({ exitCode: first.exitCode, stdout: first.stdout }).toEqual({
    exitCode: 0,
    stdout: JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version,
  });
  const written = await readFile(cache);
  expect(written.length).toBeGreaterThan(10_000);
  expect(written.equals(garbage)).toBe(false);
  expect(await cachedCommands(cache)).toEqual(['help']);
  // Read by the next start: it answers the same and keeps the cache it accepted (a rewrite is a new file renamed in).
  const accepted = (await stat(cache)).ino;
  const second = await run(['--version']);
  expect({ exitCode: second.exitCode, stdout: second.stdout }).toEqual({ exitCode: first.exitCode, stdout: first.stdout });
  expect((await stat(cache)).ino).toBe(accepted);
});

test('a command the cache has not seen adds the code it ran to the cache, once; the next starts keep it', async () => {
  const { run, cache } = await cliCopy();
  await run(['--help']);
  const helpOnly = await stat(cache);
  expect(await cachedCommands(cache)).toEqual(['help']);
  // A refused validation still runs the command's code (its options, the checkout's lookup).
  const dir = await scratch();
  const refused = await run(['validate', '--kb', '.'], dir);
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain('holds no kb/ directory');
  expect(await cachedCommands(cache)).toEqual(['help', 'validate']);
  const learned = await stat(cache);
  expect(learned.ino).not.toBe(helpOnly.ino);
  expect(learned.size).toBeGreaterThan(helpOnly.size);
  // Seen: the same command and a help page read the cache and leave it as it is.
  const again = await run(['validate', '--kb', '.'], dir);
  expect({ exitCode: again.exitCode, stderr: again.stderr }).toEqual({ exitCode: refused.exitCode, stderr: refused.stderr });
  await run(['--help']);
  expect((await stat(cache)).ino).toBe(learned.ino);
  // A subcommand is its own entry: `review status` after `validate`.
  await run(['review', 'status', '--kb', '.'], dir);
  expect(await cachedCommands(cache)).toEqual(['help', 'validate', 'review status']);
});

test("the client bundle builds the client's protobuf types only: no core protocol or Cloud types, and every type it keeps resolves", async () => {
  const bundled = await readFile(join(root, 'dist', 'cli.cjs'), 'latin1');
  // The types as the bundle hands them to protobufjs: a string literal (esbuild picks its quotes), parsed as JSON.
  const literal = /\.addJSON\(JSON\.parse\(('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\)\)/.exec(bundled)?.[1];
  expect(literal).toBeDefined();
  const types = JSON.parse(new Function(`return ${literal}`)() as string) as Record<string, protobuf.INamespace>;
  expect(Object.keys(types).sort()).toEqual(['google', 'grpc', 'nexusannotations', 'temporal']);
  const api = Object.keys((types.temporal?.nested?.api as protobuf.INamespace | undefined)?.nested ?? {});
  expect(api).not.toContain('cloud');
  expect(api).toEqual(expect.arrayContaining(['workflowservice', 'operatorservice', 'testservice', 'history', 'common']));
  // A kept type that named a pruned one would fail here, as it would in the command that first used it.
  const reflected = protobuf.Root.fromJSON({ nested: types });
  expect(() => reflected.resolveAll()).not.toThrow();
  const service = reflected.lookupService('temporal.api.workflowservice.v1.WorkflowService');
  expect(service.methodsArray.length).toBeGreaterThan(50);
  for (const method of service.methodsArray) expect([method.resolvedRequestType?.name, method.resolvedResponseType?.name]).not.toContain(undefined);
});
