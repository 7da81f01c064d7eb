/** The revision plan's shape (docs/review-editing.md). Pure; the YAML reader is `plan.ts`. */

/** One editor launch each, checked against the edit bounds. */
const DIRECT_PASSES = ['tighten', 'restructure'] as const;
/** Their selection list is proposed to the operator, then code applies it. */
const SELECTION_PASSES = ['plain-wording', 'abstractions'] as const;
export const PASSES = [...DIRECT_PASSES, ...SELECTION_PASSES] as const;
export type PassName = (typeof PASSES)[number];

export interface PlanPass {
  pass: PassName;
  focus?: string;
  /** An assessment says. */
  reason?: string;
}

export interface Plan {
  passes: PlanPass[];
}

export function isSelectionPass(pass: PassName): boolean {
  return (SELECTION_PASSES as readonly string[]).includes(pass);
}
