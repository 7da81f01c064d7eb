import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAtomicTemp, removeAtomicLeftovers, writeFileAtomic } from '../../src/fs/atomic.js';
import { scratch } from '../helpers/fake.js';

const UUID = '0b3e4f1a-9c2d-4e5f-8a7b-6c5d4e3f2a1b';

describe('the leftovers of an interrupted atomic write', () => {
  test.each([
    [`.boundary.md.4242.${UUID}.tmp`, 'boundary.md', true],
    [`.boundary.md.4242.${UUID}.tmp`, 'other.md', false],
    [`.boundary.md.4242.${UUID}.tmp`, 'md', false],
    ['.boundary.md.tmp', 'boundary.md', false],
    [`.boundary.md.pid.${UUID}.tmp`, 'boundary.md', false],
    [`boundary.md.4242.${UUID}.tmp`, 'boundary.md', false],
    ['boundary.md', 'boundary.md', false],
  ])('%s is a temporary file of a write of %s: %s', (name, target, expected) => {
    expect(isAtomicTemp(name, target)).toBe(expected);
  });

  test('the temporary file a write makes, seen before its rename, is recognised as that write of its target', async () => {
    const dir = await scratch();
    let seen: string[] = [];
    await writeFileAtomic(join(dir, 'boundary.md'), 'text\n', {
      beforeRename: async () => {
        seen = await readdir(dir);
      },
    });
    expect(seen).toHaveLength(1);
    expect(isAtomicTemp(seen[0]!, 'boundary.md')).toBe(true);
    expect(await readdir(dir)).toEqual(['boundary.md']);
  });

  test("removing a target's leftovers removes only the temporary files of that target, and keeps the target", async () => {
    const dir = await scratch();
    const leftover = `.boundary.md.4242.${UUID}.tmp`;
    const kept = ['boundary.md', `.other.md.4242.${UUID}.tmp`, '.boundary.md.tmp'];
    for (const name of [leftover, ...kept]) await writeFile(join(dir, name), 'bytes\n');
    expect(await removeAtomicLeftovers(join(dir, 'boundary.md'))).toEqual([join(dir, leftover)]);
    expect((await readdir(dir)).sort()).toEqual([...kept].sort());
    expect(await readFile(join(dir, 'boundary.md'), 'utf8')).toBe('bytes\n');
  });

  test('a target whose directory does not exist has no leftovers', async () => {
    expect(await removeAtomicLeftovers(join(await scratch(), 'absent', 'boundary.md'))).toEqual([]);
  });
});
