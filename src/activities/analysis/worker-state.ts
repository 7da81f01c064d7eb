/**
 * What one worker process keeps across the analysis activities it runs: each worktree's type
 * registry, each run's layout, and the runs whose environment it has asserted. The activities take
 * the parts they use as their first argument; the factory makes one state per worker.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { loadLayout, type Layout } from '../../kb/layouts.js';
import { TypeRegistry } from '../../kb/type-registry.js';
import { failure } from './failures.js';

export interface AnalysisWorkerState {
  /** The worktree's type registry: each type spec read and each schema compiled once per worker. */
  readonly registryFor: (worktree: string) => TypeRegistry;
  /** The run's layout, loaded once per worker; a layout file whose digest is not the one the run recorded stops the run. */
  readonly layoutFor: (worktree: string, file: string, layoutSha256: string) => Promise<Layout>;
  /**
   * Runs whose environment this worker has asserted. A worker that picks a run up mid-way (its
   * worker was replaced: killed, restarted, or another host's) asserts the environment before its
   * first launch or check of the run (`assertedHere`).
   */
  readonly asserted: Set<string>;
}

/** A fresh worker state: empty caches, no run asserted. */
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
