/**
 * The import graph of a source tree, built with the TypeScript parser (no bundler): every
 * `import … from` / `export … from` between our own modules (`import type` included), and every
 * `import('…')` call or type with a string-literal specifier. Shared by the static tests.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();

export type Graph = Map<string, string[]>;

/** Module specifiers of a file's import and export-from declarations and of its `import('…')` calls and types. */
export function specifiersOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
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

/** The graph of every `.ts` file under `dir`, keyed by its path from the package root (`src/client/main.ts`). */
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
