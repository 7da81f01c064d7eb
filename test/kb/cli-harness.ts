/**
 * A real `commonplace` process with only `validate` registered, for the end-to-end
 * CLI tests until the command is wired into src/client/main.ts. It is configured like
 * the real program: usage errors exit 2 through commander's exitOverride.
 *
 *   node --import tsx test/kb/cli-harness.ts validate [args...]
 */
import { Command } from 'commander';
import { registerValidate } from '../../src/client/validate.js';

const program = new Command('commonplace')
  .option('--debug', 'print stack traces with errors')
  .showHelpAfterError()
  .exitOverride((error) => {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    throw error;
  });
registerValidate(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error as { code?: string }).code?.startsWith('commander.')) throw error;
}
