// What the sweep benches share: a `commonplace worker` process (the compiled CLI: run `npm run build` first) holding
// one checkout, and a profiles file naming one model-API profile at a stand-in.
import { execa, type ResultPromise } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { packageRoot } from '../src/paths.js';
import { scratch } from '../test/helpers/fake.js';

/** Starts the worker on a server and resolves once it polls; its log is `worker.log` in its state directory. */
export async function startWorkerProcess(
  server: { address: string; namespace?: string },
  checkout: string,
  extraEnv: Record<string, string> = {},
  state?: string,
): Promise<{ child: ResultPromise }> {
  const stateDir = state ?? (await scratch('commonplace-bench-state-'));
  const child = execa('node', [join(packageRoot(), 'bin', 'commonplace.js'), 'worker', '--kb', checkout, '--state', stateDir], {
    env: { ...extraEnv, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace ?? 'default' },
    reject: false,
    buffer: false,
    stdout: 'ignore',
    stderr: ['pipe', { file: join(stateDir, 'worker.log') }],
  });
  await new Promise<void>((ready, failed) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/worker ready/.test(seen)) ready();
    });
    void child.then((result) => failed(new Error(`bench: the worker ended before it polled (exit ${result.exitCode}): ${seen}`)));
  });
  // Not the child itself: it is a promise of the process's end, which an async function would wait for.
  return { child };
}

/** A profiles file in `dir` with one profile `name` of the API's executor at a stand-in's URL, its key read from `keyEnv`. */
export async function standInProfiles(dir: string, name: string, api: 'anthropic' | 'openai', model: string, url: string, keyEnv: string): Promise<string> {
  const file = join(dir, 'worker-profiles.yaml');
  const baseUrl = api === 'openai' ? `${url}/v1` : url;
  const profile = { harness: api, model, 'base-url': baseUrl, 'api-key-env': keyEnv, timeout: '1m', 'max-output-tokens': 1024 };
  await writeFile(file, stringify({ profiles: { [name]: profile } }));
  return file;
}
