/** The shared dev servers of a jest run (dev-servers.js, started by the global set-up). */
export function startDevServers(root: string, count: number, logs?: string): Promise<{ addresses: string[]; stop(): Promise<void> }>;
/** The Temporal CLI the dev servers run: COMMONPLACE_TEMPORAL_CLI, else `temporal` on PATH, else the pinned one under .tools/. */
export function temporalCli(root: string): string;
