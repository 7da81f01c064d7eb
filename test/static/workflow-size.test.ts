import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/paths.js';

const tsFilesUnder = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(dir, file));
const workflows = join(packageRoot(), 'src', 'workflows');
const files = tsFilesUnder(workflows);
const activities = join(packageRoot(), 'src', 'activities');

/** A function's length in lines, from its first line to its last. */
function linesOf(node: ts.Node, source: ts.SourceFile): number {
  return source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

/** Every function in a file (declarations, methods, arrows, expressions) with its length in lines. */
function functionLengths(file: string, text = readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const name = 'name' in node && node.name ? node.name.getText(source) : `<anonymous at line ${start + 1}>`;
      found.push({ name: `${relative(packageRoot(), file)} ${name}`, lines: linesOf(node, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

type FunctionNode = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration;
const isFunctionNode = (node: ts.Node): node is FunctionNode =>
  ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node);
const isFunctionValue = (node: ts.Node | undefined) => node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** The name a function is known by: its own, or the variable or property it is assigned to. */
function nameOf(node: FunctionNode, source: ts.SourceFile): string | undefined {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.initializer === node) return parent.name.getText(source);
  return undefined;
}

/** The object literals a function returns: its `return { … }` statements (not those of functions inside it), or an arrow's `({ … })` body. */
function returnedObjects(node: FunctionNode): ts.ObjectLiteralExpression[] {
  if (!node.body) return [];
  const unwrap = (expression: ts.Expression | undefined) => (expression && ts.isParenthesizedExpression(expression) ? expression.expression : expression);
  if (!ts.isBlock(node.body)) {
    const body = unwrap(node.body);
    return body && ts.isObjectLiteralExpression(body) ? [body] : [];
  }
  const found: ts.ObjectLiteralExpression[] = [];
  const visit = (child: ts.Node): void => {
    if (isFunctionNode(child) || ts.isClassLike(child)) return;
    const returned = ts.isReturnStatement(child) ? unwrap(child.expression) : undefined;
    if (returned && ts.isObjectLiteralExpression(returned)) found.push(returned);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node.body, visit);
  return found;
}

/** The names of the functions declared inside a function (declarations, and variables holding an arrow or function expression). */
function innerFunctions(node: FunctionNode): Set<string> {
  const names = new Set<string>();
  const visit = (child: ts.Node): void => {
    if (ts.isFunctionDeclaration(child) && child.name) names.add(child.name.text);
    if (ts.isVariableDeclaration(child) && ts.isIdentifier(child.name) && isFunctionValue(child.initializer)) names.add(child.name.text);
    ts.forEachChild(child, visit);
  };
  if (node.body) ts.forEachChild(node.body, visit);
  return names;
}

/**
 * The activity factories of a file, with their length in lines. A factory is a function named
 * `create…Activities`, or any function that returns an object literal with a function among its
 * members: a method, a property whose value is an arrow or function expression, or a shorthand
 * property naming a function declared inside the factory (the closure pattern).
 */
function activityFactories(file: string, text = readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionNode(node) && node.body) {
      const name = nameOf(node, source);
      const inner = innerFunctions(node);
      const returnsActivities = returnedObjects(node).some((object) =>
        object.properties.some(
          (member) =>
            ts.isMethodDeclaration(member) ||
            (ts.isPropertyAssignment(member) && isFunctionValue(member.initializer)) ||
            (ts.isShorthandPropertyAssignment(member) && inner.has(member.name.text)),
        ),
      );
      if ((name !== undefined && /^create\w*Activities$/.test(name)) || returnsActivities) {
        found.push({
          name: `${relative(packageRoot(), file)} ${name ?? `<anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}>`}`,
          lines: linesOf(node, source),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The longest an activity factory may be: it wires plain activity functions to their dependencies, it does not hold them. */
const FACTORY_MAX_LINES = 80;

/**
 * Factories over the limit that another change is taking apart; each entry names why it waits.
 * Remove an entry when its factory is split.
 */
const WAITING: Record<string, string> = {};

describe('activity factories only wire their activities', () => {
  test(`no activity factory in src/activities/ is over ${FACTORY_MAX_LINES} lines`, () => {
    const long = tsFilesUnder(activities)
      .flatMap((file) => activityFactories(file))
      .filter((entry) => entry.lines > FACTORY_MAX_LINES && !(entry.name in WAITING));
    expect(long).toEqual([]);
  });

  test('the measure finds the factories the worker registers: every create…Activities the activities barrel calls', () => {
    const names = tsFilesUnder(activities)
      .flatMap((file) => activityFactories(file))
      .map((entry) => entry.name.split(' ')[1]);
    const barrel = readFileSync(join(activities, 'index.ts'), 'utf8');
    const called = [...barrel.matchAll(/\.\.\.(create\w*Activities)\(/g)].map((match) => match[1]);
    expect(called.length).toBeGreaterThan(0);
    expect(called.filter((name) => !names.includes(name))).toEqual([]);
  });

  const filler = (count: number, indent: string) => Array.from({ length: count }, (_, index) => `${indent}const a${index} = ${index};`).join('\n');
  test.each([
    [
      'a create…Activities function of 81 lines',
      `export function createLongActivities() {\n${filler(78, '  ')}\n  return { a0 };\n}\n`,
      ['createLongActivities 81'],
    ],
    [
      'a closure returning its inner functions',
      `export function build() {\n  async function go() {\n${filler(80, '    ')}\n  }\n  return { go };\n}\n`,
      ['build 85'],
    ],
    ['a function returning an object of methods', `export const wire = () => ({\n  async go() {\n${filler(80, '    ')}\n  },\n});\n`, ['wire 84']],
    ['a long helper that returns data, not activities', `export function helper() {\n${filler(90, '  ')}\n  return { a0, a1 };\n}\n`, []],
  ])('the factory measure: %s', (_name, text, expected) => {
    const measured = activityFactories(join(activities, 'synthetic.ts'), text).filter((entry) => entry.lines > FACTORY_MAX_LINES);
    expect(measured.map((entry) => `${entry.name.split(' ')[1]} ${entry.lines}`)).toEqual(expected);
  });
});

/** The longest a file in src/workflows/ may be: a workflow file holds one thing (the lifecycle its state machine, a workflow its main line). */
const WORKFLOW_FILE_MAX_LINES = 300;

/** A file's length in lines, as `wc -l` counts them for a file ending in a newline. */
const linesIn = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('workflow files read like the design', () => {
  test(`no file in src/workflows/ is over ${WORKFLOW_FILE_MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(packageRoot(), file), lines: linesIn(readFileSync(file, 'utf8')) }))
      .filter((entry) => entry.lines > WORKFLOW_FILE_MAX_LINES);
    expect(long).toEqual([]);
  });

  test.each([
    ['300 lines, the last ending in a newline', `${'x\n'.repeat(300)}`, 300],
    ['301 lines', `${'x\n'.repeat(301)}`, 301],
    ['301 lines, the last without a newline', `${'x\n'.repeat(300)}x`, 301],
  ])('the file measure: %s', (_name, text, lines) => {
    expect(linesIn(text)).toBe(lines);
    expect(linesIn(text) > WORKFLOW_FILE_MAX_LINES).toBe(lines > WORKFLOW_FILE_MAX_LINES);
  });

  test('src/workflows/analysis.ts keeps the opening and the main line: under 250 lines', () => {
    expect(readFileSync(join(workflows, 'analysis.ts'), 'utf8').split('\n').length).toBeLessThan(250);
  });
});

/** The longest a file and a function anywhere in src/ may be (docs/architecture.md, "The house in figures"). */
const SRC_FILE_MAX_LINES = 400;
const FUNCTION_MAX_LINES = 100;
const sources = tsFilesUnder(join(packageRoot(), 'src'));

describe('every file and function in src/ stays readable', () => {
  test(`no file in src/ is over ${SRC_FILE_MAX_LINES} lines`, () => {
    const long = sources
      .map((file) => ({ file: relative(packageRoot(), file), lines: linesIn(readFileSync(file, 'utf8')) }))
      .filter((entry) => entry.lines > SRC_FILE_MAX_LINES);
    expect(long).toEqual([]);
  });

  test(`no function in src/ is over ${FUNCTION_MAX_LINES} lines`, () => {
    const long = sources.flatMap((file) => functionLengths(file)).filter((entry) => entry.lines > FUNCTION_MAX_LINES);
    expect(long).toEqual([]);
  });

  test('the measure sees long functions: a 101-line arrow inside a method is reported with its length', () => {
    const body = Array.from({ length: 99 }, (_, index) => `      const a${index} = ${index};`).join('\n');
    const text = `class Run {\n  go() {\n    const long = () => {\n${body}\n    };\n    return long;\n  }\n}\n`;
    const measured = functionLengths(join(workflows, 'synthetic.ts'), text);
    expect(measured.filter((entry) => entry.lines > FUNCTION_MAX_LINES).map((entry) => entry.lines)).toEqual([104, 101]);
  });
});
