// Printed commands run as an operator pastes them: the line alone names the binary, the server and the
// checkout, so the shell it runs in has no TEMPORAL_* variable and no worker list of the test's.
import { expect } from '@jest/globals';
import { execa } from 'execa';

/** The printing command's environment: the server named by TEMPORAL_ADDRESS, and not run under npx (whose `npx commonplace` a test's shell cannot run). */
export const printingEnv = (address: string) => ({ TEMPORAL_ADDRESS: address, npm_command: '' });

/** The operator's shell: this process's environment without the Temporal connection or the test's worker list. */
export function shellEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^(TEMPORAL_|COMMONPLACE_KB_LIST$|npm_)/.test(entry[0]),
    ),
  );
}

/** Runs a printed line as pasted into a shell in `cwd` (with `env` over the operator's environment: a PATH, say). */
export function paste(line: string, cwd: string, env: Record<string, string> = {}) {
  return execa('sh', ['-c', `exec ${line}`], { cwd, reject: false, env: { ...shellEnv(), ...env }, extendEnv: false, timeout: 180_000 });
}

/** The command after `label: ` on a line of `text`. */
export function printed(text: unknown, label: string): string {
  const line = String(text)
    .split('\n')
    .find((each) => each.trimStart().startsWith(`${label}: `));
  expect(line).toBeDefined();
  return line!
    .trimStart()
    .slice(label.length + 2)
    .trim();
}
