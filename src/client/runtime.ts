import { DefaultLogger, Runtime } from '@temporalio/worker';
import { debugEnabled } from './errors.js';

/** Keeps the worker's own logging to warnings in the CLI (the bundler's report included), everything with --debug. */
export function installQuietRuntime(): void {
  Runtime.install({ logger: new DefaultLogger(debugEnabled() ? 'DEBUG' : 'WARN') });
}
