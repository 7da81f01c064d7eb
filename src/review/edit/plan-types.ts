/**
 * The revision plan's shape and its passes. Pure (workflow code imports it); the YAML reader is
 * `plan.ts`. docs/review-editing.md describes the plan format.
 */

/** Passes that edit the text directly: one editor launch, its output checked against the edit bounds. */
export const DIRECT_PASSES = ['tighten', 'restructure'] as const;
/** Passes that select spans first: the selection list is proposed to the operator, then code applies it. */
export const SELECTION_PASSES = ['plain-wording', 'abstractions'] as const;
export const PASSES = [...DIRECT_PASSES, ...SELECTION_PASSES] as const;
export type PassName = (typeof PASSES)[number];

export interface PlanPass {
  pass: PassName;
  /** Where to look, for the pass's worker; optional. */
  focus?: string;
  /** Why the pass was chosen (an assessment says); optional. */
  reason?: string;
}

export interface Plan {
  passes: PlanPass[];
}

/** Whether a pass proposes a selection list for approval before anything is applied. */
export function isSelectionPass(pass: PassName): boolean {
  return (SELECTION_PASSES as readonly string[]).includes(pass);
}
