/** Two asks with one answer key are handed exactly the same, so a workflow never launches the second. PURE MODULE. */
export interface AskIdentity {
  readonly prompt: string;
  /** Name → SHA-256 of each input handed (members, the note's watched parts, findings, a refusal). */
  readonly inputs: Readonly<Record<string, string>>;
  readonly outputs: readonly string[];
  readonly profile: string;
}

/** Workflow code cannot hash, so the key holds the prompt's text itself; it lives only in the workflow's memory. */
export function answerKey(ask: AskIdentity): string {
  const inputs = Object.keys(ask.inputs)
    .sort()
    .map((name) => [name, ask.inputs[name]]);
  return JSON.stringify([ask.profile, [...ask.outputs].sort(), inputs, ask.prompt]);
}
