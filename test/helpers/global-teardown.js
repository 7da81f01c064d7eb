// Stops the dev servers the global setup started (one per jest worker), and removes the state home it made.
import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  await globalThis.commonplaceDevServers?.stop();
  if (globalThis.commonplaceStateHome) await rm(globalThis.commonplaceStateHome, { recursive: true, force: true });
}
