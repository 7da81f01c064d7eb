import type { Finding } from '../../kb/findings.js';
import { clip } from '../current-details.js';

const FIRST_FINDING_CHARS = 240;
const LABEL_CHARS = 80;

/** What failed its check when the attempt budget ran out: a unit (a lens bundle, the editor, a pass) and its last findings. */
export interface SpentUnit {
  label: string;
  findings: readonly Finding[];
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Bounded to a screen (the Web UI, the CLI and the summary show it): the counts and the first finding; the rest stay in the run directory. */
export function budgetStopReason(what: string, budget: number, spent: readonly SpentUnit[]): string {
  const total = spent.reduce((sum, unit) => sum + unit.findings.length, 0);
  const first = spent.find((unit) => unit.findings.length > 0);
  const counts = spent.length > 1 ? `${plural(spent.length, 'unit')}, ${plural(total, 'finding')}` : plural(total, 'finding');
  const quoted = first ? `; first: ${first.label ? `${clip(first.label, LABEL_CHARS)} — ` : ''}${clip(first.findings[0]!.message, FIRST_FINDING_CHARS)}` : '';
  const rest = total > 1 ? ` (the rest in the run directory)` : '';
  return `${what}: attempt budget (${budget}) spent; ${counts}${quoted}${rest}`;
}
