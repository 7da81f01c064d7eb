import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

test("no activity or worker module reads a COMMONPLACE_ variable: the crash tests' faults come from the worker's faults option", async () => {
  const files = [...(await sourceFiles(join(root, 'src', 'activities'))), join(root, 'src', 'worker.ts')];
  const readers: string[] = [];
  for (const file of files) {
    if (/process\.env(\.|\[\s*['"`])COMMONPLACE_/.test(await readFile(file, 'utf8'))) readers.push(relative(root, file));
  }
  expect(readers).toEqual([]);
});
