/** The plan a checkout's analyses use unless `--plan` names another (a light module: the CLI's help reads it). */
export const DEFAULT_PLAN = 'kb/instructions/agentic-analysis/plan.yaml';
