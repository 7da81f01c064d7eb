/**
 * A real `commonplace` process with only `review status` registered, configured like
 * the real program (usage errors exit 2 through commander's exitOverride), until the
 * `review` group is wired into src/client/main.ts.
 *
 *   node --import tsx test/review/cli-harness.ts review status [args...]
 */
import { Command } from 'commander';
import { registerReviewStatus } from '../../src/client/review-status.js';

const program = new Command('commonplace')
  .option('--debug', 'print stack traces with errors')
  .showHelpAfterError()
  .exitOverride((error) => {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    throw error;
  });
registerReviewStatus(program.command('review').description('review results and sweeps'));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error as { code?: string }).code?.startsWith('commander.')) throw error;
}
