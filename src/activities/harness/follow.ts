import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { ActivityTracker } from '../../harness/activity.js';
import type { StreamDialect } from '../../harness/executor.js';
import { JsonLineReader } from '../../harness/json-stream.js';
import type { LaunchActivity } from '../../harness/launch-contract.js';

/**
 * Follows a running try's standard output as the harness writes it (the try's stdout file, so an
 * adopted try is followed the same way) and keeps what the worker is doing, for heartbeats.
 */
export class TryFollower {
  private offset = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly reader = new JsonLineReader();
  private readonly tracker: ActivityTracker;
  private reading: Promise<void> | undefined;

  constructor(
    dialect: StreamDialect,
    private readonly stdoutPath: string,
  ) {
    this.tracker = new ActivityTracker(dialect);
  }

  /** Reads what the harness wrote since the last call; never two reads at once. */
  poll(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    const handle = await open(this.stdoutPath, 'r').catch(() => undefined);
    if (!handle) return;
    try {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        const now = Date.now();
        for (const event of this.reader.push(this.decoder.write(buffer.subarray(0, bytesRead)))) this.tracker.observe(event, now);
      }
    } finally {
      await handle.close();
    }
  }

  /** How long the CLI has said, with nothing else since, that it cannot reach its endpoint. */
  unreachableForMs(now: number = Date.now()): number {
    return this.tracker.unreachableSince === undefined ? 0 : now - this.tracker.unreachableSince;
  }

  get unreachableNotice(): string | undefined {
    return this.tracker.unreachableNotice;
  }

  details(pid: number | null, startedAt: number, adoptedTry?: number): LaunchActivity {
    return { pid, elapsedMs: Date.now() - startedAt, ...this.tracker.snapshot(), ...(adoptedTry !== undefined && { adoptedTry }) };
  }
}
