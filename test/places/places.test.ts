import { ApplicationFailure } from '@temporalio/common';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { checkoutOfPath, checkoutQueue, HostPlaces, portableError, queueForActivity } from '../../src/checkout/index.js';
import { scratch } from '../helpers/fake.js';

async function host() {
  const dir = await scratch();
  const root = join(dir, 'kb');
  const worktrees = join(dir, 'kb.worktrees');
  const state = join(dir, 'state');
  await mkdir(join(root, 'kb'), { recursive: true });
  await mkdir(worktrees, { recursive: true });
  const places = new HostPlaces({ stateDir: state });
  places.add({ id: 'ab12cd34', root, worktrees });
  return { dir, root, worktrees, state, places };
}

describe('places: a host writes its paths as tokens and reads tokens as its paths', () => {
  test('a checkout, its worktrees, the state directory and the package are written from their tokens, anywhere in a value', async () => {
    const { root, worktrees, state, places } = await host();
    const value = {
      checkout: root,
      note: join(root, 'kb', 'notes', 'x.md'),
      worktree: join(worktrees, 'run-1'),
      launch: join(state, 'review', 'r', 'u', 'attempt-1'),
      command: `node ${join(packageRoot(), 'bin', 'commonplace.js')} validate`,
      message: [`cannot read ${join(root, 'kb', 'gone.md')}: ENOENT`],
      [join(root, 'key.md')]: 1,
    };
    expect(places.toPortable(value)).toEqual({
      checkout: '<checkout:ab12cd34>',
      note: '<checkout:ab12cd34>/kb/notes/x.md',
      worktree: '<worktrees:ab12cd34>/run-1',
      launch: '<state>/review/r/u/attempt-1',
      command: 'node <package>/bin/commonplace.js validate',
      message: ['cannot read <checkout:ab12cd34>/kb/gone.md: ENOENT'],
      '<checkout:ab12cd34>/key.md': 1,
    });
    expect(places.toHost(places.toPortable(value))).toEqual(value);
  });

  test('a path that only shares a prefix with a root is left alone', async () => {
    const { root, places } = await host();
    expect(places.toPortable(`${root}2/kb/notes/x.md`)).toBe(`${root}2/kb/notes/x.md`);
    expect(places.toPortable(`${root}-copy`)).toBe(`${root}-copy`);
  });

  test('a state directory inside the checkout is written from the checkout, which every host reads alike', async () => {
    const { root } = await host();
    const places = new HostPlaces({ stateDir: join(root, '.commonplace') });
    places.add({ id: 'ab12cd34', root, worktrees: `${root}.worktrees` });
    expect(places.toPortable(join(root, '.commonplace', 'review', 'x'))).toBe('<checkout:ab12cd34>/.commonplace/review/x');
  });

  test('the checkout reached through a symbolic link is written from its token too', async () => {
    const { dir, root, places } = await host();
    const link = join(dir, 'link');
    await symlink(root, link);
    const linked = new HostPlaces();
    linked.add({ id: 'ab12cd34', root: link, worktrees: join(dir, 'none') });
    expect(linked.toPortable(join(root, 'kb', 'a.md'))).toBe('<checkout:ab12cd34>/kb/a.md');
    expect(places.holds('ab12cd34')).toBe(true);
  });

  test('a path of a checkout this host does not hold is refused, naming the checkout; a token quoted in text is left as written', async () => {
    const { places } = await host();
    let refused: unknown;
    try {
      places.toHost({ checkout: '<checkout:0000ffff>' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).type).toBe('checkout-not-held');
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
    expect((refused as Error).message).toBe('this worker does not hold checkout 0000ffff (start a worker with --kb naming that checkout)');
    expect(places.toHost('a note quoting <checkout:0000ffff>/kb/x.md')).toBe('a note quoting <checkout:0000ffff>/kb/x.md');
  });

  test('two checkouts with one ID are refused, naming both', async () => {
    const { root, places } = await host();
    expect(() => places.add({ id: 'ab12cd34', root: `${root}-other`, worktrees: `${root}-other.worktrees` })).toThrow(/share the checkout ID ab12cd34/);
  });

  test('a failure leaves the host with its message, stack and details written from tokens', async () => {
    const { root, places } = await host();
    const failure = ApplicationFailure.create({ type: 'bad', message: `no ${join(root, 'kb', 'x.md')}`, details: [{ file: join(root, 'kb', 'x.md') }] });
    failure.stack = `Error: no ${join(root, 'kb', 'x.md')}\n    at ${join(packageRoot(), 'src', 'a.ts')}:1:1`;
    portableError(failure, places);
    expect(failure.message).toBe('no <checkout:ab12cd34>/kb/x.md');
    expect(failure.stack).toBe('Error: no <checkout:ab12cd34>/kb/x.md\n    at <package>/src/a.ts:1:1');
    expect(failure.details).toEqual([{ file: '<checkout:ab12cd34>/kb/x.md' }]);
  });
});

describe('routing: an activity goes to the queue of the checkout its input names a path in', () => {
  test('a path written from a checkout or its worktrees names the checkout queue', () => {
    expect(queueForActivity([{ checkout: '<checkout:ab12cd34>', unit: { note: 'kb/notes/x.md' } }])).toBe(checkoutQueue('ab12cd34'));
    expect(queueForActivity([{ runDir: '<worktrees:ab12cd34>/run/.commonplace/analysis/run' }])).toBe('commonplace/checkout/ab12cd34');
    expect(checkoutOfPath('<checkout:ab12cd34>/kb')).toBe('ab12cd34');
  });

  test('a launch that carries its inputs and runs under <state> names no checkout: the shared queue', () => {
    expect(
      queueForActivity([{ dir: '<state>/review/r/u/attempt-1', files: { 'inputs/note.md': 'a note quoting <checkout:ab12cd34>/kb/x.md' }, prompt: 'p' }]),
    ).toBeUndefined();
    expect(queueForActivity([{ dir: '/srv/kb/.commonplace/review/x' }])).toBeUndefined();
  });
});
