/**
 * The import graph of src/: every `import … from` / `export … from` between our own modules
 * (`import type` included — a type-only cycle still ties the modules' layers together) and every
 * `import('…')` with a string-literal specifier (a lazy load is an edge all the same: the CLI's
 * registrations load their work so), built from the sources with the TypeScript parser, no bundler
 * involved.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();
const src = join(root, 'src');

export type Graph = Map<string, string[]>;

/** Module specifiers of a file's import and export-from declarations and of its `import('…')` calls and types. */
export function specifiersOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A relative specifier as the `.ts` file it names (`./x.js` → `./x.ts`, a directory → its `index.ts`); packages are not ours. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

/** The graph of every `.ts` file under `dir`, keyed by its path from the package root (`src/cli/main.ts`). */
export async function importGraph(dir: string): Promise<Graph> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
  const graph: Graph = new Map();
  for (const file of files.sort()) {
    const text = await readFile(file, 'utf8');
    const targets = specifiersOf(file, text).flatMap((specifier) => resolveSpecifier(file, specifier) ?? []);
    graph.set(relative(root, file).split(sep).join('/'), [...new Set(targets.map((target) => relative(root, target).split(sep).join('/')))]);
  }
  return graph;
}

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
const UPPER_LAYERS = ['src/workflows/', 'src/cli/'];

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

  test('no module below the workflows and the CLI imports from src/workflows/ or src/cli/', () => {
    const upward = [...graph]
      .filter(([file]) => LOWER_LAYERS.some((layer) => file.startsWith(layer)))
      .flatMap(([file, targets]) => targets.filter((target) => UPPER_LAYERS.some((layer) => target.startsWith(layer))).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });
});
