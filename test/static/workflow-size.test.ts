import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/paths.js';

const workflows = join(packageRoot(), 'src', 'workflows');
const files = (readdirSync(workflows, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(workflows, file));

/** Every function in a file (declarations, methods, arrows, expressions) with its length in lines. */
function functionLengths(file: string, text = readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = 'name' in node && node.name ? node.name.getText(source) : `<anonymous at line ${start + 1}>`;
      found.push({ name: `${relative(packageRoot(), file)} ${name}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('workflow files read like the design', () => {
  test('src/workflows/analysis.ts keeps the opening and the main line: under 250 lines', () => {
    expect(readFileSync(join(workflows, 'analysis.ts'), 'utf8').split('\n').length).toBeLessThan(250);
  });

  test('no function in src/workflows/ is over 120 lines', () => {
    const long = files.flatMap((file) => functionLengths(file)).filter((entry) => entry.lines > 120);
    expect(long).toEqual([]);
  });

  test('the measure sees long functions: a 121-line arrow inside a method is reported with its length', () => {
    const body = Array.from({ length: 119 }, (_, index) => `      const a${index} = ${index};`).join('\n');
    const text = `class Run {\n  go() {\n    const long = () => {\n${body}\n    };\n    return long;\n  }\n}\n`;
    const measured = functionLengths(join(workflows, 'synthetic.ts'), text);
    expect(measured.filter((entry) => entry.lines > 120).map((entry) => entry.lines)).toEqual([124, 121]);
  });
});
