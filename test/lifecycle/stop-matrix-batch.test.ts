/**
 * The stop matrix (issue 52) on the provider batch route: a `--batch` sweep of four pairs on an anthropic
 * profile at the local stand-in (every request of every provider batch, and every live one, counted there by
 * its prompt) is stopped each way a run goes on in a new execution, and goes on to its end: no ask answered
 * before is asked again, and every pair has its result file. The rows and their assertions are
 * test/lifecycle/stop-matrix.ts.
 */
import { useDevServerRooms } from '../helpers/servers.js';
import { playRow, rowsOf } from './stop-matrix.js';

const { room } = useDevServerRooms();

// No usage-limit row: a provider batch is not asked against the account's live usage window. Its requests
// are answered, errored or expired by the provider (an errored one is asked live, under the live route's
// rule), and a batch the provider will not take stops the batch `launch-failed`, never `usage-limit`.
test.concurrent.each(rowsOf('batch', (way) => way !== 'usage-limit'))(
  'a %s sweep that goes on after %s asks no answered unit again and writes every result',
  async (_route, _way, route, way) => {
    await playRow(await room(), route, way);
  },
);
