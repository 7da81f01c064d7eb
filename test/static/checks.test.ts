import { execa } from 'execa';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

// The typecheck and ESLint over the whole tree are not here: they run beside jest, as scripts/static-checks.sh
// (.ci/run counts each as one result). What stays is what those two do not check by themselves.
describe('static checks', () => {
  test.each([
    ["import { readFileSync } from 'node:fs';\nvoid readFileSync;\n", /'node:fs' import is restricted/],
    ["import { createHash } from 'crypto';\nvoid createHash;\n", /'crypto' import is restricted/],
    ["import { createActivities } from '../activities/index.js';\nvoid createActivities;\n", /only as types/],
  ])('ESLint refuses workflow code that imports %j', async (code, message) => {
    const result = await execa(bin('eslint'), ['--stdin', '--stdin-filename', 'src/workflows/not-deterministic.ts'], { cwd: root, input: code, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(message);
  });

  test('the launch activity (its try module) is the only place a harness process is started', async () => {
    const spawners: string[] = [];
    for (const file of await sourceFiles(join(root, 'src'))) {
      const text = await readFile(file, 'utf8');
      if (/\bexeca(Sync|Node)?\s*\(|\bfrom 'node:child_process'|\bspawn\s*\(/.test(text)) spawners.push(relative(root, file));
    }
    // The Git runner may spawn git; the dev server is started outside src/ (temporal/); no harness is started anywhere else.
    const gitReaders = /^src\/fs\/git\.ts$/;
    expect(spawners.filter((file) => file !== 'src/activities/harness/tries.ts' && !gitReaders.test(file))).toEqual([]);
    for (const file of spawners.filter((name) => gitReaders.test(name))) {
      const text = await readFile(join(root, file), 'utf8');
      expect({ file, spawnsOnlyGit: [...text.matchAll(/\bexeca\(\s*['"]([^'"]+)['"]/g)].every((call) => call[1] === 'git') }).toEqual({
        file,
        spawnsOnlyGit: true,
      });
    }
    expect(spawners).toContain('src/activities/harness/tries.ts');
    expect(spawners).toContain('src/fs/git.ts');
  });
});
