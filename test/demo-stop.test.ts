// The demo's stops: Ctrl-C, and a port already taken. The demo's run itself is test/demo.test.ts (a file of
// its own: it is the longest test of the suite).
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { scratch, waitFor } from './helpers/fake.js';
import { freePort, listening } from './helpers/ports.js';

test('Ctrl-C of the demo (SIGINT to its process group, as a terminal sends it) stops its Temporal server: nothing listens on its ports once it has exited', async () => {
  const state = await scratch('commonplace-demo-');
  const [port, uiPort] = [await freePort(), await freePort()];
  const demo = execa('bash', [join(packageRoot(), 'scripts', 'demo.sh')], {
    cwd: packageRoot(),
    reject: false,
    all: true,
    detached: true,
    timeout: 300_000,
    env: { COMMONPLACE_DEMO_PREPARED: '1', COMMONPLACE_DEMO_STATE: state, COMMONPLACE_DEMO_PORT: String(port), COMMONPLACE_DEMO_UI_PORT: String(uiPort) },
  });
  let output = '';
  demo.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('the demo to be past its server start', async () => output.includes('== a scratch KB checkout') || demo.exitCode !== null, 180_000);
  expect(await listening(port)).toBe(true);
  process.kill(-demo.pid!, 'SIGINT');
  await demo;
  expect(await listening(port)).toBe(false);
  expect(await listening(uiPort)).toBe(false);
}, 240_000);

test('a demo whose port is taken says which process holds it and the variable that moves it, and starts nothing', async () => {
  const state = await scratch('commonplace-demo-');
  const [port, uiPort] = [await freePort(), await freePort()];
  const other = createServer();
  await new Promise<void>((done) => other.listen({ host: '127.0.0.1', port }, () => done()));
  try {
    const demo = await execa('bash', [join(packageRoot(), 'scripts', 'demo.sh')], {
      cwd: packageRoot(),
      reject: false,
      all: true,
      timeout: 120_000,
      env: { COMMONPLACE_DEMO_PREPARED: '1', COMMONPLACE_DEMO_STATE: state, COMMONPLACE_DEMO_PORT: String(port), COMMONPLACE_DEMO_UI_PORT: String(uiPort) },
    });
    expect(demo.exitCode).toBe(1);
    expect(demo.all).toContain(
      `demo: port ${port} (COMMONPLACE_DEMO_PORT) is in use by node (pid ${process.pid}); stop it, or run the demo on other ports: COMMONPLACE_DEMO_PORT=`,
    );
    expect(existsSync(join(state, 'temporal.db'))).toBe(false);
  } finally {
    await new Promise<void>((done) => other.close(() => done()));
  }
});
