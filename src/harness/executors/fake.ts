/** The fake harness as an executor: the project's own executable (bin/fake-harness.js), played from a scenario file. */
import type { CliExecutor } from '../executor.js';
import { isJsonObject, num, parseJsonLines } from '../json-stream.js';
import type { HarnessReport } from '../report.js';

/** The fake harness prints one line {"type":"fake-result", model, usage, cost_usd}, or plays another harness's output. */
export function fakeReport(stdout: string): HarnessReport {
  const line = parseJsonLines(stdout)
    .reverse()
    .find((event) => event.type === 'fake-result');
  if (!line) return {};
  const report: HarnessReport = {};
  if (typeof line.model === 'string' && line.model) report.model = line.model;
  if (isJsonObject(line.usage)) {
    report.usage = { inputTokens: num(line.usage.input_tokens) ?? 0, outputTokens: num(line.usage.output_tokens) ?? 0 };
  }
  const cost = num(line.cost_usd);
  if (cost !== undefined) report.costUsd = cost;
  return report;
}

export const fake: CliExecutor = {
  kind: 'cli',
  name: 'fake',
  cli: 'fake-harness.js',
  install: 'it ships with commonplace (bin/fake-harness.js); reinstall the package',
  defaultCommand: (fakeHarnessPath) => fakeHarnessPath,
  commandLine: (profile, fakeHarnessPath) => ({
    file: profile.command ?? fakeHarnessPath,
    args: [...(profile.model === undefined ? [] : ['--model', profile.model]), ...profile.flags],
  }),
  env: () => ({}),
  // It plays claude's stream events when a scenario gives them.
  dialect: 'claude',
  report: fakeReport,
  usageLimitPatterns: [/usage limit reached/i, /you['’]ve hit your (?:usage )?limit/i, /hit your usage limit/i],
  errorEvents: false,
};
