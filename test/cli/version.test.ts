import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';

test.each(['--version', '-V'])('commonplace %s prints the package version and exits 0', async (flag) => {
  const { version } = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  const run = await runCli([flag]);
  expect(run.exitCode).toBe(0);
  expect(String(run.stdout).trim()).toBe(version);
});
