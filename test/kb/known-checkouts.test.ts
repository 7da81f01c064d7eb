/**
 * A host's record of the checkouts it has named (src/checkout/), and `--kb` given a
 * checkout ID: the root on record is used once the checkout there still has that ID.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { checkoutId, findCheckout, knownCheckoutFile, openCheckout, recordCheckout, recordedRoot, recordNamed, stateHome } from '../../src/checkout/index.js';
import { knowCheckoutHere } from '../../src/client/shared/checkout.js';
import { makeTemp, removeTemps } from './helpers.js';

afterAll(removeTemps);

/** A fresh state home, as XDG_STATE_HOME names it. */
async function stateEnv(): Promise<NodeJS.ProcessEnv> {
  return { XDG_STATE_HOME: await makeTemp('commonplace-state-'), HOME: '/nonexistent' };
}

async function checkoutDir(): Promise<{ root: string; id: string }> {
  const root = await makeTemp('commonplace-checkout-');
  await mkdir(path.join(root, 'kb'));
  return { root, id: await checkoutId(root) };
}

describe('the record of checkouts', () => {
  test('lives under $XDG_STATE_HOME/commonplace/checkouts, else ~/.local/state (a relative XDG_STATE_HOME is ignored)', () => {
    expect(knownCheckoutFile('0123abcd', { XDG_STATE_HOME: '/state' })).toBe('/state/commonplace/checkouts/0123abcd');
    expect(stateHome({ HOME: '/home/op' })).toBe('/home/op/.local/state');
    expect(stateHome({ HOME: '/home/op', XDG_STATE_HOME: 'relative' })).toBe('/home/op/.local/state');
  });

  test('a checkout is written once, holding its root; named again unchanged, its file is not rewritten', async () => {
    const env = await stateEnv();
    const { root, id } = await checkoutDir();
    expect(await recordCheckout(id, root, env)).toBe(true);
    const file = knownCheckoutFile(id, env);
    expect(await readFile(file, 'utf8')).toBe(`${root}\n`);
    const before = await stat(file);
    expect(await recordCheckout(id, root, env)).toBe(false);
    const after = await stat(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(recordedRoot(id, env)).toBe(root);
  });

  test.each([
    ['opens it for work (`openCheckout`, as a run starts)', (root: string) => openCheckout(root)],
    ['only names it (`knowCheckoutHere`, as `--kb` or the current directory does)', (root: string) => knowCheckoutHere(root)],
  ])('a command that %s records it under the state home', async (_how, name) => {
    const { root, id } = await checkoutDir();
    const saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = (await stateEnv()).XDG_STATE_HOME;
    try {
      await name(root);
      expect(recordedRoot(id)).toBe(root);
    } finally {
      process.env.XDG_STATE_HOME = saved;
    }
  });

  test('a state home that cannot be written fails no command: the CLI records nothing and goes on', async () => {
    const { root, id } = await checkoutDir();
    const blocked = path.join(await makeTemp('commonplace-state-'), 'a-file');
    await writeFile(blocked, '');
    const saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = blocked;
    try {
      await expect(recordNamed(id, root)).resolves.toBeUndefined();
      expect(recordedRoot(id)).toBeUndefined();
    } finally {
      process.env.XDG_STATE_HOME = saved;
    }
  });

  test('a checkout that moved is recorded again at its new root', async () => {
    const env = await stateEnv();
    const { root, id } = await checkoutDir();
    await recordCheckout(id, '/where/it/was', env);
    expect(await recordCheckout(id, root, env)).toBe(true);
    expect(recordedRoot(id, env)).toBe(root);
  });
});

describe('--kb with a checkout ID', () => {
  test('names the checkout this host has on record, from any directory', async () => {
    const env = await stateEnv();
    const { root, id } = await checkoutDir();
    await recordCheckout(id, root, env);
    expect(findCheckout('/', id, env)).toEqual({ root, kbDir: path.join(root, 'kb') });
  });

  test('an ID with no record is an error that says how a checkout gets recorded and what to name instead', async () => {
    const env = await stateEnv();
    expect(() => findCheckout('/', '32ae503a', env)).toThrow(
      "--kb 32ae503a: no directory of that name, and this host has no checkout with that ID on record (a checkout is recorded the first time a command names it); name the checkout's directory",
    );
  });

  test('a recorded root whose checkout now has another ID is refused, naming both', async () => {
    const env = await stateEnv();
    const { root, id } = await checkoutDir();
    await recordCheckout(id, root, env);
    const other = id === 'ffffffff' ? '00000000' : 'ffffffff';
    await writeFile(path.join(root, '.commonplace', 'checkout-id'), `${other}\n`);
    expect(() => findCheckout('/', id, env)).toThrow(
      `--kb ${id}: this host recorded checkout ${id} at ${root}, which has ID ${other} now; name the checkout's directory`,
    );
  });

  test('a recorded root that is no checkout any more is refused', async () => {
    const env = await stateEnv();
    await recordCheckout('0badc0de', '/nonexistent/kb-checkout', env);
    expect(() => findCheckout('/', '0badc0de', env)).toThrow(
      "--kb 0badc0de: this host recorded checkout 0badc0de at /nonexistent/kb-checkout, which is no checkout now; name the checkout's directory",
    );
  });

  test('a directory of that name wins over an ID', async () => {
    const env = await stateEnv();
    const { root, id } = await checkoutDir();
    await recordCheckout(id, root, env);
    const parent = await makeTemp('commonplace-cwd-');
    await mkdir(path.join(parent, id, 'kb'), { recursive: true });
    expect(findCheckout(parent, id, env).root).toBe(path.join(parent, id));
  });
});
