/** A compare run's directory: each file checked as it is read, a bad line named by file and line. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs/atomic.js';
import {
  COMPARE_RUN_FILE,
  COMPARE_RUNS_DIR,
  verdicts,
  type CompareReport,
  type CompareRunFile,
  type CompareSample,
  type Label,
  type RouteVerdict,
} from './types.js';

export class CompareRunError extends Error {
  override readonly name = 'CompareRunError';
}

export const compareRunDir = (checkoutRoot: string, runId: string): string => path.join(checkoutRoot, ...COMPARE_RUNS_DIR.split('/'), runId);
export const labelsFile = (runDir: string): string => path.join(runDir, 'labels.jsonl');
export const reportFile = (runDir: string, extension: 'json' | 'md' | 'html'): string => path.join(runDir, `report.${extension}`);

const verdict = z.enum(verdicts as unknown as ['pass', 'warn', 'fail']);
const tokens = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });
const samplePair = z.object({ note: z.string(), criterion: z.string(), kind: z.string() });
const sampleSchema = z.object({
  seed: z.number(),
  size: z.number(),
  perCriterionMin: z.number(),
  criteria: z.array(z.string()).optional(),
  notes: z.array(z.string()).optional(),
  pairs: z.array(samplePair),
});
const routeVerdictSchema = z.object({
  route: z.string().min(1),
  note: z.string().min(1),
  criterion: z.string().min(1),
  verdict,
  reasons: z.array(z.string()),
  review: z.string(),
  executor: z.string(),
  model: z.string().nullable(),
  tokens,
  costUsd: z.number().nullable(),
  criterionHash: z.string(),
  noteHash: z.string(),
});
const labelSchema = z.object({ note: z.string().min(1), criterion: z.string().min(1), verdict, by: z.string(), at: z.string() });

const issueText = (error: z.ZodError): string => error.issues.map((issue) => `${issue.path.join('.') || 'the line'}: ${issue.message}`).join('; ');
const relative = (runDir: string, file: string): string => path.join(path.basename(runDir), path.relative(runDir, file));

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function jsonLines<T>(text: string, schema: z.ZodType<T>, where: string): T[] {
  const rows: T[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CompareRunError(`${where} line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new CompareRunError(`${where} line ${index + 1}: ${issueText(parsed.error)}`);
    rows.push(parsed.data);
  });
  return rows;
}

export async function readSample(runDir: string): Promise<CompareSample> {
  const file = path.join(runDir, 'sample.json');
  const text = await readText(file);
  if (text === undefined) throw new CompareRunError(`${relative(runDir, file)} is missing: is ${path.basename(runDir)} a compare run of this checkout?`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CompareRunError(`${relative(runDir, file)} is not JSON: ${(error as Error).message}`);
  }
  const parsed = sampleSchema.safeParse(value);
  if (!parsed.success) throw new CompareRunError(`${relative(runDir, file)}: ${issueText(parsed.error)}`);
  return parsed.data;
}

export async function readVerdicts(runDir: string): Promise<RouteVerdict[]> {
  const dir = path.join(runDir, 'verdicts');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.jsonl')).sort();
  const all: RouteVerdict[] = [];
  for (const name of names) all.push(...jsonLines(await readFile(path.join(dir, name), 'utf8'), routeVerdictSchema, relative(runDir, path.join(dir, name))));
  return all;
}

export async function readLabels(runDir: string): Promise<Label[]> {
  const file = labelsFile(runDir);
  return jsonLines((await readText(file)) ?? '', labelSchema, relative(runDir, file));
}

/** Rewrites the file atomically. */
export async function appendLabels(runDir: string, labels: readonly Label[]): Promise<void> {
  if (labels.length === 0) return;
  const file = labelsFile(runDir);
  const before = (await readText(file)) ?? '';
  const lead = before === '' || before.endsWith('\n') ? before : `${before}\n`;
  await writeFileAtomic(file, `${lead}${labels.map((label) => JSON.stringify(label)).join('\n')}\n`);
}

type Order = { routes: string[]; reference: string };
const orderOf = ({ routes, reference }: Partial<CompareRunFile>): Order | undefined =>
  Array.isArray(routes) && routes.every((route) => typeof route === 'string') && typeof reference === 'string' ? { routes, reference } : undefined;

/** The run's own record (run.json, written as it starts), else an earlier report's. */
export async function readReportOrder(runDir: string): Promise<Order | undefined> {
  const asked = await readText(path.join(runDir, COMPARE_RUN_FILE));
  const ordered = asked === undefined ? undefined : orderOf(JSON.parse(asked) as Partial<CompareRunFile>);
  if (ordered) return ordered;
  const text = await readText(reportFile(runDir, 'json'));
  try {
    return text === undefined ? undefined : orderOf(JSON.parse(text) as Partial<CompareReport>);
  } catch {
    return undefined; // A malformed earlier report is rewritten; the order then comes from the verdicts.
  }
}

export async function readReport(runDir: string): Promise<CompareReport | undefined> {
  const text = await readText(reportFile(runDir, 'json'));
  return text === undefined ? undefined : (JSON.parse(text) as CompareReport);
}
