/** The roles the analysis workflow asks; the plan supplies their data. PURE MODULE. */

export const BOUNDARY = 'boundary';
export const RUNTIME_REPORT = 'runtime-report';
/** The three lens reports, asked in parallel against the same snapshot. */
export const LENSES = ['lens-control', 'lens-memory', 'lens-learning'] as const;
export const RECONCILIATION = 'reconciliation';
export const REPORT_VERIFICATION = 'report-verification';
export const MEMORY_PROFILE = 'memory-profile';
export const PROFILE_VERIFICATION = 'profile-verification';
export const SYNTHESIS = 'synthesis';
export const SYNTHESIS_VERIFICATION = 'synthesis-verification';

export const REPORT_GROUP: readonly string[] = [RUNTIME_REPORT, ...LENSES, RECONCILIATION];

/** Every role in the order the workflow writes them; a role reads only roles before it (the lenses not each other). */
export const WORKFLOW_ROLES: readonly string[] = [
  BOUNDARY,
  RUNTIME_REPORT,
  ...LENSES,
  RECONCILIATION,
  REPORT_VERIFICATION,
  MEMORY_PROFILE,
  PROFILE_VERIFICATION,
  SYNTHESIS,
  SYNTHESIS_VERIFICATION,
];

/** Each verifier's subjects come from the layout's `verifies`, within these. */
export const VERIFIERS: Readonly<Record<string, readonly string[]>> = {
  [REPORT_VERIFICATION]: REPORT_GROUP,
  [PROFILE_VERIFICATION]: [MEMORY_PROFILE],
  [SYNTHESIS_VERIFICATION]: [SYNTHESIS],
};

/** Lenses share one position: they are one round. */
export function roleRank(role: string): number {
  if ((LENSES as readonly string[]).includes(role)) return WORKFLOW_ROLES.indexOf(LENSES[0]);
  return WORKFLOW_ROLES.indexOf(role);
}

export function writtenBefore(read: string, reader: string): boolean {
  const a = roleRank(read);
  const b = roleRank(reader);
  return a >= 0 && b >= 0 && a < b;
}
