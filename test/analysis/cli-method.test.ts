/** `analysis install-method --json` through the real CLI: the report as an analysis-install-method document. */
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { git, toyCheckout } from './helpers.js';

test('install-method --json lists what it wrote and the command that commits it; a second install writes nothing and has no next', async () => {
  const checkout = await toyCheckout();
  const first = await runCli(['analysis', 'install-method', '--kb', checkout, '--json']);
  expect(first.exitCode).toBe(0);
  const installed = expectShape(String(first.stdout), 'analysis-install-method') as {
    checkout: string;
    plan: string;
    written: string[];
    replaced: string[];
    next: string;
  };
  expect(installed.checkout).toBe(checkout);
  expect(installed.written).toContain('kb/instructions/agentic-analysis/plan.yaml');
  expect(installed.plan).toBe('kb/instructions/agentic-analysis/plan.yaml');
  expect(installed.replaced).toEqual([]);
  expect(installed.next).toMatch(/^git -C \S+ add kb\/instructions\/agentic-analysis kb\/types\/agentic-analysis && git -C \S+ commit -m /);
  expect(await git(checkout, 'status', '--porcelain', 'kb/instructions/agentic-analysis')).not.toBe('');

  const second = await runCli(['analysis', 'install-method', '--kb', checkout, '--json']);
  expect(second.exitCode).toBe(0);
  const again = expectShape(String(second.stdout), 'analysis-install-method');
  expect(again).toEqual(expect.objectContaining({ written: [], replaced: [], unchanged: installed.written }));
  expect(again).not.toHaveProperty('next');
});
