/** A job prompt's `name = value` lines: the plan loader builds them with placeholders to prove every prompt renders. PURE MODULE. */
import type { Plan, PlanRole } from './plan.js';
import type { PromptLine } from './prompt.js';

export interface JobValues {
  readonly run: string;
  readonly system: string;
  /** What the frozen-source role's `source` must say. */
  readonly source: string;
  /** Absolute: the frozen source is in it, and workers may write there. */
  readonly capture: string;
  /** For `{command} validate …` self-checks. */
  readonly command: string;
}

/** An ask beyond the first: a re-ask, a correction, a fresh ask because inputs changed; each adds its line. */
interface JobVariant {
  readonly findings?: boolean;
  readonly refusal?: boolean;
  readonly changed?: readonly string[];
}

/** In the order they are printed. */
export const FIXED_LINES = [
  'job',
  'role',
  'run',
  'system',
  'type',
  'criteria',
  'output',
  'artifact',
  'identity',
  'cites',
  'verifies',
  'source',
  'capture',
  'command',
  'findings',
  'refusal',
  'changed',
] as const;

export const inputLine = (role: string) => `input-${role}`;

/** In a launch directory. */
export const LAUNCH_ARTIFACT = 'artifact';
export const FINDINGS_FILE = 'findings.md';
export const REFUSAL_FILE = 'refusal.md';

function inputPath(plan: Plan, role: string): string {
  const entry = plan.layout.roles.find((candidate) => candidate.name === role);
  return `${LAUNCH_ARTIFACT}/${entry?.path ?? `${role}.md`}`;
}

function identityValue(identity: Readonly<Record<string, string>>): string {
  return Object.entries(identity)
    .map(([field, value]) => (field === value ? field : `${field}=${value}`))
    .join(', ');
}

/** In a fixed order, so the same job always reads the same. */
export function jobLines(plan: Plan, role: PlanRole, values: JobValues, variant: JobVariant = {}): PromptLine[] {
  const lines: PromptLine[] = [
    { name: 'job', value: role.name },
    { name: 'role', value: role.name },
    { name: 'run', value: values.run },
    { name: 'system', value: values.system },
    { name: 'type', value: role.type },
  ];
  if (role.criteriaFiles.length > 0) lines.push({ name: 'criteria', value: role.criteriaFiles.join(', ') });
  for (const read of role.reads) lines.push({ name: inputLine(read), value: inputPath(plan, read) });
  lines.push({ name: 'output', value: role.outputs.join(', ') }, { name: 'artifact', value: LAUNCH_ARTIFACT });
  if (Object.keys(role.identity).length > 0) lines.push({ name: 'identity', value: identityValue(role.identity) });
  if (role.cites.length > 0) lines.push({ name: 'cites', value: role.cites.join(', ') });
  if (role.verifies.length > 0) lines.push({ name: 'verifies', value: role.verifies.join(', ') });
  lines.push({ name: 'source', value: values.source }, { name: 'capture', value: values.capture }, { name: 'command', value: values.command });
  for (const [name, value] of Object.entries(plan.parameters)) lines.push({ name, value });
  if (variant.findings) lines.push({ name: 'findings', value: FINDINGS_FILE });
  if (variant.refusal) lines.push({ name: 'refusal', value: REFUSAL_FILE });
  if (variant.changed !== undefined && variant.changed.length > 0) lines.push({ name: 'changed', value: variant.changed.join(', ') });
  return lines;
}

/** Each combination of a role's possible extra lines, for the plan loader to render once. */
export function variantsOf(refusable: boolean, freshAsked: boolean): { label: string; variant: JobVariant }[] {
  const variants: { label: string; variant: JobVariant }[] = [];
  for (const findings of [false, true]) {
    for (const refusal of refusable ? [false, true] : [false]) {
      for (const changed of freshAsked ? [false, true] : [false]) {
        const parts = [findings && 'findings', refusal && 'refusal', changed && 'changed'].filter(Boolean);
        variants.push({
          label: parts.length === 0 ? 'the first ask' : `an ask with ${parts.join(' and ')}`,
          variant: { ...(findings && { findings }), ...(refusal && { refusal }), ...(changed && { changed: ['changed-role'] }) },
        });
      }
    }
  }
  return variants;
}
