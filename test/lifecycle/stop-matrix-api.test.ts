/**
 * The stop matrix (issue 52) on the model-API live route: a sweep of four pairs on an anthropic profile at the
 * local stand-in (every request counted there by its prompt) is stopped each way a run goes on in a new
 * execution, and goes on to its end: no ask answered before is asked again, and every pair has its result
 * file. The rows and their assertions are test/lifecycle/stop-matrix.ts.
 */
import { useDevServerRooms } from '../helpers/servers.js';
import { playRow, rowsOf } from './stop-matrix.js';

const { room } = useDevServerRooms();

// Every way applies to a model API asked live.
test.concurrent.each(rowsOf('api', () => true))(
  'a %s sweep that goes on after %s asks no answered unit again and writes every result',
  async (_route, _way, route, way) => {
    await playRow(await room(), route, way);
  },
);
