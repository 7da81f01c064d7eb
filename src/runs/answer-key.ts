/**
 * The answer key of an ask (the seeds' answer-cache key): its prompt, the digests of the inputs it
 * is handed, its declared outputs and the profile. Two asks with one key would be handed exactly
 * the same, so a workflow never launches the second: the recorded answer stands for it.
 *
 * PURE MODULE: workflows import it.
 */

/** What an ask is handed: the answer key's parts. */
export interface AskIdentity {
  readonly prompt: string;
  /** Name → SHA-256 of each input handed (members, the note's watched parts, findings, a refusal). */
  readonly inputs: Readonly<Record<string, string>>;
  readonly outputs: readonly string[];
  readonly profile: string;
}

/**
 * The key as one string. Workflow code cannot hash, so the key holds the prompt's text itself;
 * equal texts are equal digests, and the key lives only in the workflow's memory.
 */
export function answerKey(ask: AskIdentity): string {
  const inputs = Object.keys(ask.inputs)
    .sort()
    .map((name) => [name, ask.inputs[name]]);
  return JSON.stringify([ask.profile, [...ask.outputs].sort(), inputs, ask.prompt]);
}
