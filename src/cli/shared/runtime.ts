import { DefaultLogger, Runtime } from '@temporalio/worker';
import { debugEnabled } from './errors.js';

/** What a worker holding a checkout says of its checkout queue's worker, which serves activities only by design. */
const expected = /^No workflows registered, not polling for workflow tasks/;

/** Keeps the worker's own logging to warnings in the CLI (the bundler's report included), everything with --debug. */
export function installQuietRuntime(): void {
  const level = debugEnabled() ? 'DEBUG' : 'WARN';
  const printer = new DefaultLogger(level);
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      if (!expected.test(entry.message)) printer.log(entry.level, entry.message, entry.meta);
    }),
  });
}
