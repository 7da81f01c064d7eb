import { findCheckout } from '../../checkout/index.js';
import { KbError } from '../../kb/errors.js';
import { InstallError, installMethod, type InstallReport } from '../../activities/analysis/method.js';
import { DEFAULT_PLAN } from '../../activities/analysis/default-plan.js';
import { UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';
import { runnable } from '../shared/command-line.js';

export async function runInstallMethod(options: { force?: boolean; kb?: string; json?: boolean }): Promise<void> {
  let report: InstallReport;
  try {
    report = await installMethod(findCheckout(process.cwd(), options.kb).root, { force: options.force ?? false });
  } catch (error) {
    if (error instanceof InstallError) throw new UserError(error.message);
    if (error instanceof KbError) throw new UserError(error.message);
    throw error;
  }
  const { checkout, written, replaced, unchanged, warnings } = report;
  const commit = `git -C ${checkout} add kb/instructions/agentic-analysis kb/types/agentic-analysis && git -C ${checkout} commit -m "Add the agentic-analysis method"`;
  const installed = written.length + replaced.length > 0;
  if (options.json) {
    printJson('analysis-install-method', 1, {
      checkout,
      from: report.from,
      plan: DEFAULT_PLAN,
      written,
      replaced,
      unchanged,
      warnings,
      ...(installed && { next: commit }),
    });
    return;
  }
  const lines: string[] = [];
  if (!installed) {
    lines.push(`the agentic-analysis method is already installed in ${checkout}: ${unchanged.length} files identical, nothing written`);
  } else {
    lines.push(`installed the agentic-analysis method in ${checkout}`);
    for (const file of written) lines.push(`  wrote     ${file}`);
    for (const file of replaced) lines.push(`  replaced  ${file}`);
    if (unchanged.length > 0) lines.push(`  ${unchanged.length} file${unchanged.length === 1 ? '' : 's'} already identical`);
    lines.push(
      `next: commit it — ${commit}`,
      `then: prepare a run for a system (SYSTEM its name, DIR its source; the plan is ${DEFAULT_PLAN}): ${runnable('commonplace analysis prepare SYSTEM --source DIR')}`,
    );
  }
  for (const warning of warnings) lines.push(`warning: ${warning}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
