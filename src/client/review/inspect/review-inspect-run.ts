/** `review inspect RUN`: state live while open, else from the run directory; launches only from the histories (said when the server is away). */
import { findCheckout } from '../../../checkout/index.js';
import { printJson } from '../../shared/json-output.js';
import { nameCheckout } from '../../shared/checkout.js';
import { inspectEdit, inspectSweep, optionalClient } from './inspect-gather.js';
import { locate } from './inspect-files.js';
import { formatInspected } from './inspect-format.js';
import { compareRunOf, formatCompareInspected, inspectCompare } from './inspect-compare.js';
import { rendered } from '../../shared/render-paths.js';
import { workingOn } from '../../shared/command-line.js';

export interface InspectOptions {
  kb?: string;
  json?: boolean;
}

/** `review inspect RUN`: exit 0 once the run is printed; 1 for no such run or a bad run ID. */
export async function runInspect(run: string, options: InspectOptions): Promise<void> {
  const checkout = workingOn(findCheckout(process.cwd(), options.kb).root);
  // The run's data names the checkout by its token: naming it here shows those as this host's paths.
  await nameCheckout(checkout).catch(() => undefined);
  const client = await optionalClient();
  const server = typeof client === 'string' ? undefined : client;
  const compareRun = await compareRunOf(checkout, run);
  if (compareRun !== undefined) return print(options, 'compare-inspect', await inspectCompare(checkout, compareRun, server), formatCompareInspected);
  const located = await locate(checkout, run, server);
  const inspected = located.kind === 'sweep' ? await inspectSweep(run, checkout, located, client) : await inspectEdit(run, checkout, located, client);
  print(options, 'review-inspect', inspected, formatInspected);
}

/** The document as JSON (`--json`), or as the operator reads it. */
function print<T extends object>(options: InspectOptions, shape: string, inspected: T, format: (inspected: T) => string): void {
  if (options.json) printJson(shape, 1, inspected);
  else process.stdout.write(`${rendered(format(inspected))}\n`);
}
