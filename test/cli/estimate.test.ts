// `--estimate` on `review compare` and `analysis run`: the figures of each route (or the run's launches)
// printed from the KB and the profiles alone — no server is asked (the address names none), nothing is
// started and nothing is written; and a compare or analysis run that starts says the same estimate first.
import { readdir } from 'node:fs/promises';
import type { Estimate } from '../../src/runs/estimate.js';
import { prepareToy, toyCheckout } from '../analysis/helpers.js';
import { estimateLine } from '../../src/runs/estimate.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { kbCopy, exampleKb } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();

/** No server listens here: a command that asked one would fail. */
const noServer = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

const exampleCheckout = () => kbCopy(exampleKb, { prefix: 'commonplace-estimate-cli-', git: true });

const tree = async (root: string) => (await readdir(root, { recursive: true })).map(String).sort();

describe('review compare --estimate', () => {
  test('prints each asked route of the sample, batched routes at half price, and starts and writes nothing', async () => {
    const checkout = await exampleCheckout();
    const before = await tree(checkout);
    const run = await runCli(
      [
        'review',
        'compare',
        '--kb',
        checkout,
        '--routes',
        'anthropic-haiku:pair,anthropic-sonnet:bundle:batch,claude:pair',
        '--size',
        '12',
        '--estimate',
        '--json',
      ],
      { env: noServer },
    );
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: '' });
    const estimate = expectShape(String(run.stdout), 'estimate') as unknown as Estimate;
    expect(estimate.kind).toBe('compare');
    expect(estimate.routes.map((route) => [route.route, route.pairs, route.batch])).toEqual([
      ['anthropic-haiku:pair', 12, false],
      ['anthropic-sonnet:bundle:batch', 12, true],
      ['claude:pair', 12, false],
    ]);
    const [haiku, sonnet, claude] = estimate.routes;
    expect(haiku!.units).toBe(12);
    expect(sonnet!.units).toBeLessThan(12);
    expect(sonnet!.dollars.batch).toBeCloseTo(sonnet!.dollars.live! / 2, 10);
    expect(claude!).toMatchObject({ pricedAs: 'claude-sonnet-5', requests: 12 * 6, dollars: { batch: null } });
    expect(await tree(checkout)).toEqual(before);
  });

  test('as text: a line per route and what its figures rest on, defaults named as such', async () => {
    const checkout = await exampleCheckout();
    const run = await runCli(['review', 'compare', '--kb', checkout, '--routes', 'openai-mini:pair,claude-lean:bundle', '--size', '8', '--estimate'], {
      env: noServer,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^estimate of this compare, nothing started:$/m);
    expect(run.stdout).toMatch(
      /^ {2}openai-mini:pair: 8 pairs, 8 units, 8 requests, input [\d,]+ tokens .* \$\d+\.\d{4} live \(\$\d+\.\d{4} batched\), ~\d+ s$/m,
    );
    expect(run.stdout).toMatch(/^ {4}output: 52 tokens a pair \(default: bench\/review-cost\.ts structured answers\)$/m);
    expect(run.stdout).toMatch(/^ {2}claude-lean:bundle: 8 pairs, \d+ units/m);
  });
});

describe('analysis run --estimate', () => {
  test('prints one launch per role of the plan under the run profile, and starts and writes nothing', async () => {
    const checkout = await toyCheckout();
    const prepared = await prepareToy(checkout);
    const before = await tree(prepared.worktree);
    const run = await runCli(['analysis', 'run', prepared.runId, '--kb', checkout, '--estimate', '--json'], { env: noServer });
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: '' });
    const estimate = expectShape(String(run.stdout), 'estimate') as unknown as Estimate;
    expect(estimate.kind).toBe('analysis');
    expect(estimate.routes[0]).toMatchObject({ profile: 'fake', grouping: 'launch', units: 11, dollars: { live: null, batch: null } });
    expect(estimate.routes[0]!.basis[0]).toMatch(/^launches: one per role \(11\) when every member passes first time; up to \d+ with every attempt spent$/);
    expect(await tree(prepared.worktree)).toEqual(before);
  });
});

test.each([
  { command: 'review run gates', args: ['review', 'run', 'gates', '--resume', 'GS-0000-0000'] },
  { command: 'review compare', args: ['review', 'compare', '--resume', 'CMP-0000-0000'] },
])('$command --resume … --estimate is refused in one line, nothing resumed', async ({ args }) => {
  const run = await runCli([...args, '--estimate'], { env: noServer });
  expect({ exitCode: run.exitCode, stderr: String(run.stderr).trim() }).toEqual({
    exitCode: 1,
    stderr: expect.stringMatching(/^commonplace: --estimate estimates a (sweep|compare run) before it starts: .* without --resume$/),
  });
});

describe("a started run's first line", () => {
  test('a compare run that starts prints its estimate first, the same as --estimate', async () => {
    const checkout = await exampleCheckout();
    const args = ['review', 'compare', '--kb', checkout, '--routes', 'fake:pair,fake:bundle', '--size', '4'];
    const asked = await runCli([...args, '--estimate', '--json'], { env: noServer });
    const estimate = expectShape(String(asked.stdout), 'estimate') as unknown as Estimate;
    const run = await runCli(args, { env: { TEMPORAL_ADDRESS: address() } });
    expect({ exitCode: run.exitCode, first: String(run.stderr).split('\n')[0] }).toEqual({ exitCode: 0, first: estimateLine(estimate) });
    expect(String(run.stderr)).toMatch(/^started compare\//m);
  });

  test('an analysis run that starts prints its estimate first, the same as --estimate', async () => {
    const checkout = await toyCheckout();
    const prepared = await prepareToy(checkout);
    const asked = await runCli(['analysis', 'run', prepared.runId, '--kb', checkout, '--estimate', '--json'], { env: noServer });
    const estimate = expectShape(String(asked.stdout), 'estimate') as unknown as Estimate;
    const run = await runCli(['analysis', 'run', prepared.runId, '--kb', checkout, '--detach'], { env: { TEMPORAL_ADDRESS: address() } });
    expect({ exitCode: run.exitCode, first: String(run.stderr).split('\n')[0] }).toEqual({ exitCode: 0, first: estimateLine(estimate) });
    expect(String(run.stderr)).toMatch(/^started analysis\//m);
  });
});
