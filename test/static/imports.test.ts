/**
 * The import graph of src/: every `import … from` / `export … from` between our own modules
 * (`import type` included — a type-only cycle still ties the modules' layers together) and every
 * `import('…')` with a string-literal specifier (a lazy load is an edge all the same: the CLI's
 * registrations load their work so), built from the sources with the TypeScript parser, no bundler
 * involved.
 */
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { importGraph, specifiersOf, type Graph } from '../helpers/import-graph.js';

const src = join(packageRoot(), 'src');

/** One cycle per strongly connected component (Tarjan), each as the path `a → b → … → a`. */
function cyclesOf(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  // Within a component, the shortest way from its first member back to itself (breadth-first).
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const next of graph.get(node) ?? []) {
        if (!members.has(next)) continue;
        if (next === start) {
          const path = [node];
          while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
          return [...path, start];
        }
        if (!previous.has(next)) {
          previous.set(next, node);
          queue.push(next);
        }
      }
    }
    return [start, start];
  });
}

const formatCycles = (cycles: string[][]) => cycles.map((cycle) => `${cycle.join(' → ')}`);

/**
 * The layers of src/, lowest first: a module imports from its own layer and the layers below it,
 * never from one above. The order is the one the imports follow: Node-side helpers and words; the KB's
 * domain; the launch contract and executors; a run's pure rules (stops, spend, quota, answer keys,
 * workflow IDs and the commands that name a run) with the search attributes and the checkout (its
 * places, ID and locator); the analysis and review domains; metrics and traces; the activities; the
 * workflows with the worker; the client. Each top-level module of src/ is in one layer.
 */
const LAYERS: readonly { name: string; holds: readonly string[] }[] = [
  { name: 'fs', holds: ['src/fs/', 'src/paths.ts', 'src/place-words.ts'] },
  { name: 'kb', holds: ['src/kb/'] },
  { name: 'harness', holds: ['src/harness/'] },
  { name: 'runs', holds: ['src/runs/', 'src/search-attributes.ts', 'src/checkout/', 'src/release.ts', 'src/release-stamp.ts'] },
  { name: 'analysis and review', holds: ['src/analysis/', 'src/review/'] },
  { name: 'observability', holds: ['src/observability/'] },
  { name: 'activities', holds: ['src/activities/'] },
  { name: 'workflows', holds: ['src/workflows/', 'src/worker.ts', 'src/workflow-bundle.ts', 'src/workflow-code.ts'] },
  { name: 'client', holds: ['src/client/'] },
];

/** A module's layer, as its index in LAYERS (undefined outside src/ or outside every layer). */
const layerOf = (file: string): number | undefined => {
  const index = LAYERS.findIndex((layer) => layer.holds.some((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))));
  return index < 0 ? undefined : index;
};

/** Every import from a lower layer into a higher one, as `a.ts → b.ts (kb → review)`. */
function upwardArrows(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      const from = layerOf(file);
      const to = layerOf(target);
      return from !== undefined && to !== undefined && to > from ? [`${file} → ${target} (${LAYERS[from]!.name} → ${LAYERS[to]!.name})`] : [];
    }),
  );
}

describe('the import graph of src/', () => {
  let graph: Graph;
  beforeAll(async () => {
    graph = await importGraph(src);
  });

  test('the cycle finder reports a cycle it is handed and nothing for an acyclic graph', () => {
    const cyclic: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(formatCycles(cyclesOf(cyclic))).toEqual(['a.ts → b.ts → c.ts → a.ts']);
    expect(
      cyclesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  test('a lazy import() with a string-literal specifier is an edge, as a static import is', () => {
    const text = [
      "import type { A } from './a.js';",
      "export { B } from './b.js';",
      "const run = () => import('./c-run.js');",
      "type D = import('./d.js').D;",
      'const dynamic = (name: string) => import(name);',
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual(['./a.js', './b.js', './c-run.js', './d.js']);
  });

  test('no module under src/ takes part in an import cycle', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(formatCycles(cyclesOf(graph))).toEqual([]);
  });

  test('the layer check reports an import into a higher layer and nothing for one into a lower layer or its own', () => {
    const layered: Graph = new Map([
      ['src/kb/validate.ts', ['src/review/compare/calibration.ts', 'src/fs/digest.ts', 'src/kb/notes.ts']],
      ['src/harness/executors/api-review.ts', ['src/review/sweep-types.ts', 'src/harness/prompt-cache.ts']],
      ['src/activities/index.ts', ['src/workflows/messages.ts', 'src/review/status.ts']],
      ['src/client/main.ts', ['src/workflows/index.ts']],
    ]);
    expect(upwardArrows(layered)).toEqual([
      'src/kb/validate.ts → src/review/compare/calibration.ts (kb → analysis and review)',
      'src/harness/executors/api-review.ts → src/review/sweep-types.ts (harness → analysis and review)',
      'src/activities/index.ts → src/workflows/messages.ts (activities → workflows)',
    ]);
  });

  test('every module under src/ is in one layer', () => {
    expect([...graph.keys()].filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  test('no module imports from a layer above its own (so none below the workflows and the CLI reaches into them)', () => {
    expect(upwardArrows(graph)).toEqual([]);
  });
});
