/**
 * The stop matrix (issue 52) on the CLI route: a sweep of four pairs on a CLI harness (the fake, every launch
 * counted at its ledger by its prompt's digest) is stopped each way a run goes on in a new execution, and goes
 * on to its end: no ask answered before is asked again, and every pair has its result file. The model-API
 * routes are stop-matrix-api.test.ts (live) and stop-matrix-batch.test.ts (provider batches); a worker killed
 * and a server restarted are kill-and-resume.test.ts and test/sweep/server-restart.test.ts. The rows and their
 * assertions are test/lifecycle/stop-matrix.ts.
 */
import { useDevServerRooms } from '../helpers/servers.js';
import { playRow, rowsOf } from './stop-matrix.js';

// Each row runs in a namespace of its own, all at once: most of a row is waiting on the server.
const { room } = useDevServerRooms();

// Every way applies to a CLI harness.
test.concurrent.each(rowsOf('cli', () => true))(
  'a %s sweep that goes on after %s asks no answered unit again and writes every result',
  async (_route, _way, route, way) => {
    await playRow(await room(), route, way);
  },
);
