/**
 * One module builds workflow IDs (src/runs/workflow-ids.ts) and one the commands that name a run
 * (src/runs/run-commands.ts): no other module under src/ writes a template literal that begins with
 * a workflow kind's prefix (`` `gates/${…}` ``), extends a workflow ID with a child's segment
 * (`` `${workflowInfo().workflowId}/batch-${…}` ``), or begins a command that names a run
 * (`` `commonplace review run gates --resume ${…}` ``); nor joins such a prefix with `+`. Read with
 * the TypeScript parser, so comments and plain strings (`startsWith('gates/')` is reading, not
 * building) do not count.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/paths.js';
import { WORKFLOW_ID_PREFIXES } from '../../src/runs/workflow-ids.js';

const root = packageRoot();

/** The modules that build them. */
const BUILDERS = ['src/runs/workflow-ids.ts', 'src/runs/run-commands.ts'];

/**
 * Waiting for the workflows' restructuring to merge (a unit's path, the child-batch loop, the
 * lifecycle split move these lines): their IDs and commands are then taken from the two modules and
 * this list is emptied.
 */
const WAITING_FOR_THE_WORKFLOWS: string[] = [];

/** Template literals that begin with a prefix but name something else, each with what it names. */
const NOT_WORKFLOW_IDS: Record<string, string> = {
  'src/analysis/run-id.ts: `analysis/${…}`': "an analysis run's Git branch (`runBranch`), not a workflow ID",
};

/** The commands that name a run, by their first words. */
const RUN_COMMAND =
  /^(commonplace (review (run|retry|compare|approve|acknowledge|cancel|packet|inspect)|analysis (run|inspect|reset|integrate)|quota open) |temporal workflow (query|describe) )/;

/** What a template literal's text reads like, its substitutions as `${…}`. */
function shapeOf(node: ts.TemplateExpression): string {
  return `${node.head.text}${node.templateSpans.map((span) => `\${…}${span.literal.text}`).join('')}`;
}

/** The ID or command constructions in one source text, as `` `shape` `` each. */
function constructionsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const startsWithPrefix = (value: string) => WORKFLOW_ID_PREFIXES.some((prefix) => value.startsWith(prefix));
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node)) {
      const head = node.head.text;
      const first = node.templateSpans[0]!;
      // A child's ID: the parent's workflow ID, then its batch segment.
      const extendsWorkflowId =
        head === '' && /workflowId\b/.test(first.expression.getText(source)) && node.templateSpans.some((span) => span.literal.text.includes('/batch-'));
      if (startsWithPrefix(head) || extendsWorkflowId || RUN_COMMAND.test(head)) found.push(`\`${shapeOf(node)}\``);
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      ts.isStringLiteralLike(node.left) &&
      startsWithPrefix(node.left.text)
    ) {
      found.push(`'${node.left.text}' + …`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

async function sources(): Promise<string[]> {
  const entries = await readdir(join(root, 'src'), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

describe('workflow IDs and the commands that name a run are built in one place', () => {
  test('the check sees a prefixed ID, an extended one, a joined one and a run command, and not a read or a comment', () => {
    const text = [
      'const a = `gates/${runId}`;',
      'const b = `${workflowInfo().workflowId}/batch-${batch + 1}`;',
      "const c = 'quota/' + account;",
      'const d = `commonplace review cancel ${runId}`;',
      "const e = run.startsWith('gates/') ? run.slice(6) : `sweep ${run}`;",
      '// `gates/${runId}` in a comment',
      'const f = `${runId}/${unit.key}/batch-${round}`;',
      'const g = `${info.workflowId}/${info.runId}/${info.activityId}`;',
    ].join('\n');
    expect(constructionsIn('x.ts', text)).toEqual(['`gates/${…}`', '`${…}/batch-${…}`', "'quota/' + …", '`commonplace review cancel ${…}`']);
  });

  test('no module but the two builders writes one (src/workflows/ waiting, listed)', async () => {
    const offenders: string[] = [];
    const waiting: string[] = [];
    for (const file of await sources()) {
      if (BUILDERS.includes(file)) continue;
      const found = constructionsIn(file, await readFile(join(root, file), 'utf8')).filter((shape) => NOT_WORKFLOW_IDS[`${file}: ${shape}`] === undefined);
      if (WAITING_FOR_THE_WORKFLOWS.some((dir) => file.startsWith(dir))) waiting.push(...found.map((shape) => `${file}: ${shape}`));
      else offenders.push(...found.map((shape) => `${file}: ${shape}`));
    }
    expect(offenders).toEqual([]);
    // What the list still lets through; when it is empty, so is the list.
    expect(waiting.length > 0 || WAITING_FOR_THE_WORKFLOWS.length === 0).toBe(true);
  });

  test('each exception still names a construction that exists', async () => {
    for (const key of Object.keys(NOT_WORKFLOW_IDS)) {
      const [file, shape] = key.split(': ') as [string, string];
      expect(constructionsIn(file, await readFile(join(root, file), 'utf8'))).toContain(shape);
    }
  });
});
