/** The shared dev servers of a jest run (dev-servers.js, started by the global set-up). */
export function startDevServers(root: string, count: number, logs?: string): Promise<{ addresses: string[]; stop(): Promise<void> }>;
