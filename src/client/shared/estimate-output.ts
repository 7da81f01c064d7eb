/** How `--estimate` and a started run's first line print an estimate (src/runs/estimate.ts counts it). */
import { estimateLine, estimateText, type Estimate } from '../../runs/estimate.js';
import { printJson } from './json-output.js';

/** `--estimate`: the estimate on stdout, as text or as one `estimate` document; nothing is started. */
export function printEstimate(estimate: Estimate, json: boolean | undefined): void {
  if (json) printJson('estimate', 1, estimate);
  else process.stdout.write(`${estimateText(estimate)}\n`);
}

/** A started run's first line: its estimate, or why there is none (an estimate never stops a run from starting). */
export async function estimateLineOf(estimate: () => Promise<Estimate>): Promise<string> {
  try {
    return estimateLine(await estimate());
  } catch (error) {
    return `estimate: unavailable (${((error as Error).message ?? String(error)).split('\n')[0]})`;
  }
}
