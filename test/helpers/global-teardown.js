// Stops the dev servers the global setup started (one per jest worker).
export default async function globalTeardown() {
  await globalThis.commonplaceDevServers?.stop();
}
