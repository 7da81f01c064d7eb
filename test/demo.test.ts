import { execa } from 'execa';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { scratch } from './helpers/fake.js';
import { freePort } from './helpers/ports.js';

test('the README\'s main job (npm run demo) runs on the embedded default: an analysis published and integrated with one correction round, a gate sweep, exit 0', async () => {
  const state = await scratch('commonplace-demo-');
  const demo = await execa('bash', [join(packageRoot(), 'scripts', 'demo.sh')], {
    cwd: packageRoot(),
    reject: false,
    all: true,
    timeout: 300_000,
    env: { COMMONPLACE_DEMO_PREPARED: '1', COMMONPLACE_DEMO_STATE: state, COMMONPLACE_DEMO_PORT: String(await freePort()), COMMONPLACE_DEMO_UI_PORT: String(await freePort()) },
  });
  expect(demo.all).toMatch(/probe probe\/fake\/\S+: profile fake \(fake\) — completed/);
  expect(demo.all).toMatch(/run AAS-\S+-quill-01 completed: the artifact is published to kb\/agentic-systems\/quill\/AAS-\S+-quill-01/);
  expect(demo.all).toMatch(/lens-learning #2 +attempt 2 +correction accepted/);
  expect(demo.all).toMatch(/integrated AAS-\S+-quill-01 into main at [0-9a-f]{12} \(12 paths\)/);
  expect(demo.all).toMatch(/^12 files \(11 notes, 1 published manifest\): 0 failures, 0 warnings$/m);
  expect(demo.all).toMatch(/sweep GS-\S+ completed/);
  expect(demo.all).toMatch(/fresh +62/);
  expect(demo.all).toMatch(/The fake harness wrote every member and every review above/);
  expect(demo.all).toMatch(/the fake harness writes every review; no model is called/);
  expect(demo.exitCode).toBe(0);
}, 320_000);
