// The run's shared dev servers (global set-up): one that exits as it starts (its port taken between the pick
// and the bind) is started again on another port, and the run goes on.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { packageRoot } from '../../src/paths.js';
import { startDevServers, temporalCli } from './dev-servers.js';
import { scratch } from './fake.js';

test('a dev server that exits at start is started again on another port', async () => {
  const dir = await scratch();
  const starts = join(dir, 'starts.txt');
  // The first start exits at once, as a server whose port was taken does; the next is the real CLI.
  const cli = join(dir, 'temporal');
  const real = temporalCli(packageRoot());
  await writeFile(
    cli,
    `#!/usr/bin/env bash\necho "$*" >> ${JSON.stringify(starts)}\nif [ "$(wc -l < ${JSON.stringify(starts)})" -eq 1 ]; then echo "bind: address already in use" >&2; exit 1; fi\nexec ${JSON.stringify(real)} "$@"\n`,
  );
  await chmod(cli, 0o755);
  const before = process.env.COMMONPLACE_TEMPORAL_CLI;
  process.env.COMMONPLACE_TEMPORAL_CLI = cli;
  let servers: { addresses: string[]; stop(): Promise<void> } | undefined;
  try {
    servers = await startDevServers(packageRoot(), 1, dir);
  } finally {
    if (before === undefined) delete process.env.COMMONPLACE_TEMPORAL_CLI;
    else process.env.COMMONPLACE_TEMPORAL_CLI = before;
  }
  try {
    const lines = (await readFile(starts, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    const ports = lines.map((line) => /--port (\d+)/.exec(line)?.[1]);
    expect(ports[1]).not.toBe(ports[0]);
    expect(servers.addresses).toEqual([`127.0.0.1:${ports[1]}`]);
    const connection = await Connection.connect({ address: servers.addresses[0]! });
    try {
      await connection.workflowService.getSystemInfo({});
    } finally {
      await connection.close();
    }
  } finally {
    await servers.stop();
  }
});
