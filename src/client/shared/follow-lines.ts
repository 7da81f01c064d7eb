/**
 * What the follow loop writes on stderr besides the outcome: the live progress line, and the words for a
 * run that waits out a usage limit by itself (no stop for the operator: the follow goes on).
 */
import type { LifecycleProgress } from '../../runs/stop.js';

/** Live progress on stderr: one rewritten line on a terminal, otherwise a changed line at most every second. */
export class ProgressLine {
  private last = '';
  private printedAt = 0;
  private open = false;
  private readonly tty = Boolean(process.stderr.isTTY);

  show(line: string): void {
    if (line === this.last) return;
    if (this.tty) {
      process.stderr.write(`\r\x1b[K${line}`);
      this.open = true;
      this.last = line;
    } else if (Date.now() - this.printedAt >= 1000) {
      process.stderr.write(`${line}\n`);
      this.printedAt = Date.now();
      this.last = line;
    }
  }

  /** A message of its own line, after the live line. */
  say(message: string): void {
    this.end();
    process.stderr.write(`${message}\n`);
  }

  end(): void {
    if (this.open) process.stderr.write('\n');
    this.open = false;
    this.last = '';
  }
}

/** A run stopped only on usage limits that it waits out by itself (`--auto-resume`, a schedule's sweeps): no stop for the operator. */
export function resumesBySelf(progress: LifecycleProgress): boolean {
  return (
    progress.status === 'stopped' &&
    progress.resumesAt !== undefined &&
    progress.stops.length > 0 &&
    progress.stops.every((stop) => stop.kind === 'usage-limit')
  );
}

/** What the follow says while a run waits out a usage limit by itself. */
export function waitingLine(workflowId: string, progress: LifecycleProgress): string {
  const reason = progress.stops[0]?.reason ?? 'a usage limit';
  return `${workflowId} waits out a usage limit (${reason}); it resumes by itself at ${progress.resumesAt} (--auto-resume), nothing to type — still following (Ctrl-C stops following, not the run)`;
}
