import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { findCheckout } from '../../src/checkout/index.js';
import { makeTemp, removeTemps } from './helpers.js';

afterAll(removeTemps);

describe('findCheckout', () => {
  test('finds the Git root above the start directory when it holds kb/', async () => {
    const root = await makeTemp('commonplace-checkout-');
    await mkdir(path.join(root, '.git'));
    await mkdir(path.join(root, 'kb/notes/deep'), { recursive: true });
    expect(findCheckout(path.join(root, 'kb/notes/deep'))).toEqual({ root, kbDir: path.join(root, 'kb') });
  });

  test('accepts a worktree, whose .git is a file', async () => {
    const root = await makeTemp('commonplace-checkout-');
    await writeFile(path.join(root, '.git'), 'gitdir: /elsewhere/.git/worktrees/run\n');
    await mkdir(path.join(root, 'kb'));
    expect(findCheckout(root).root).toBe(root);
  });

  test('a Git root without kb/ is an error that says what to do', async () => {
    const root = await makeTemp('commonplace-checkout-');
    await mkdir(path.join(root, '.git'));
    await mkdir(path.join(root, 'src'));
    expect(() => findCheckout(path.join(root, 'src'))).toThrow(`the Git checkout at ${root} has no kb/ directory; run inside a KB checkout or pass --kb DIR`);
  });

  test('a directory outside any Git checkout is an error that points at --kb', async () => {
    const root = await makeTemp('commonplace-checkout-');
    await mkdir(path.join(root, 'kb'));
    expect(() => findCheckout(root)).toThrow(`${root} is not inside a Git checkout; run inside a KB checkout or pass --kb DIR`);
  });

  test('--kb names the checkout directly, with or without .git, or its kb/ directory', async () => {
    const root = await makeTemp('commonplace-checkout-');
    await mkdir(path.join(root, 'kb'));
    expect(findCheckout('/', root)).toEqual({ root, kbDir: path.join(root, 'kb') });
    expect(findCheckout(root, 'kb')).toEqual({ root, kbDir: path.join(root, 'kb') });
  });

  test('--kb naming a directory without kb/ is an error', async () => {
    const root = await makeTemp('commonplace-checkout-');
    expect(() => findCheckout('/', root)).toThrow(`--kb ${root}: ${root} holds no kb/ directory; name the checkout whose kb/ holds the notes`);
    expect(() => findCheckout(root, 'missing')).toThrow(`--kb missing: ${path.join(root, 'missing')} is not a directory`);
  });
});
