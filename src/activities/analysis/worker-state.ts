/** What one worker keeps across the analysis activities; each activity takes the parts it uses as its first argument. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { loadLayout, type Layout } from '../../kb/layouts.js';
import { TypeRegistry } from '../../kb/type-registry.js';
import { failure } from './failures.js';

export interface AnalysisWorkerState {
  /** Each type spec read and each schema compiled once per worker. */
  readonly registryFor: (worktree: string) => TypeRegistry;
  /** A layout whose digest is not the one the run recorded stops the run. */
  readonly layoutFor: (worktree: string, file: string, layoutSha256: string) => Promise<Layout>;
  /** A worker that picks a run up mid-way asserts the environment before its first launch or check of it (`assertedHere`). */
  readonly asserted: Set<string>;
}

export function createAnalysisWorkerState(): AnalysisWorkerState {
  const registries = new Map<string, TypeRegistry>();
  const layouts = new Map<string, Promise<Layout>>();
  const registryFor = (worktree: string) => {
    let registry = registries.get(worktree);
    if (!registry) registries.set(worktree, (registry = new TypeRegistry(worktree)));
    return registry;
  };
  const layoutFor = (worktree: string, file: string, layoutSha256: string) => {
    const key = `${worktree}\0${file}\0${layoutSha256}`;
    let layout = layouts.get(key);
    if (!layout) {
      layout = (async () => {
        const text = await readFile(path.join(worktree, file));
        if (sha256(text) !== layoutSha256)
          throw failure('environment-changed', `the layout ${file} changed since the run started`, {
            problems: [`the layout ${file} changed`],
            evidence: path.join(worktree, file),
          });
        return loadLayout(file, worktree);
      })();
      layout.catch(() => layouts.delete(key));
      layouts.set(key, layout);
    }
    return layout;
  };
  return { registryFor, layoutFor, asserted: new Set<string>() };
}
