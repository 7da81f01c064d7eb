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

/** Layers below the workflows and the CLI: they may not reach up into either. */
const LOWER_LAYERS = ['src/kb/', 'src/review/', 'src/analysis/', 'src/harness/', 'src/activities/', 'src/runs/', 'src/fs/'];
const UPPER_LAYERS = ['src/workflows/', 'src/client/'];

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
    expect(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
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

  test('no module below the workflows and the CLI imports from src/workflows/ or src/client/', () => {
    const upward = [...graph]
      .filter(([file]) => LOWER_LAYERS.some((layer) => file.startsWith(layer)))
      .flatMap(([file, targets]) => targets.filter((target) => UPPER_LAYERS.some((layer) => target.startsWith(layer))).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });
});
