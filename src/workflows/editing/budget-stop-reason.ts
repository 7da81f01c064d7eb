/**
 * The reason of an editing run's budget-exhausted stop, bounded to a screen: it is shown in the Web
 * UI's current details, the CLI's stop and the run's summary, so it carries the counts and the first
 * finding only; every finding stays in the run directory (the stop's evidence).
 */
import type { Finding } from '../../kb/findings.js';
import { clip } from '../current-details.js';

/** How much of the first finding the reason quotes. */
const FIRST_FINDING_CHARS = 240;
/** How much of a unit's label (its criteria) the reason quotes. */
const LABEL_CHARS = 80;

/** What failed its check when the attempt budget ran out: a unit (a lens bundle, the editor, a pass) and its last findings. */
export interface SpentUnit {
  label: string;
  findings: readonly (Finding | string)[];
}

const message = (finding: Finding | string) => (typeof finding === 'string' ? finding : finding.message);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** `what: attempt budget (N) spent; counts; first: label — finding …`, a few lines at most, never cut mid-word. */
export function budgetStopReason(what: string, budget: number, spent: readonly SpentUnit[]): string {
  const total = spent.reduce((sum, unit) => sum + unit.findings.length, 0);
  const first = spent.find((unit) => unit.findings.length > 0);
  const counts = spent.length > 1 ? `${plural(spent.length, 'unit')}, ${plural(total, 'finding')}` : plural(total, 'finding');
  const quoted = first ? `; first: ${first.label ? `${clip(first.label, LABEL_CHARS)} — ` : ''}${clip(message(first.findings[0]!), FIRST_FINDING_CHARS)}` : '';
  const rest = total > 1 ? ` (the rest in the run directory)` : '';
  return `${what}: attempt budget (${budget}) spent; ${counts}${quoted}${rest}`;
}
