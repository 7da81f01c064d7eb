import { join } from 'node:path';
import { missingHarness, resolveCommand } from '../../src/harness/installed.js';
import type { Profile } from '../../src/harness/profiles.js';
import { packageRoot } from '../../src/paths.js';
import { fakeHarnessPath } from '../../src/worker.js';

const profile = (harness: Profile['harness'], extra: Partial<Profile> = {}): Profile => ({
  name: harness,
  harness,
  flags: [],
  timeoutMs: 1000,
  attempts: 3,
  env: {},
  ...extra,
});
const clis = join(packageRoot(), 'tools', 'harness-clis', 'node_modules', '.bin');

describe('a profile whose CLI is missing', () => {
  test.each([
    ['claude', /the claude CLI "claude", which is not installed .*npm install -g @anthropic-ai\/claude-code/],
    ['codex', /the codex CLI "codex", which is not installed .*npm install -g @openai\/codex/],
    ['pi', /the pi CLI "pi", which is not installed .*npm install -g @mariozechner\/pi-coding-agent/],
  ] as const)('%s is named with how to install it', (harness, message) => {
    expect(missingHarness(profile(harness), fakeHarnessPath, { PATH: '/nonexistent' })).toMatch(message);
  });

  test("an installed CLI passes: the pinned ones on PATH, the fake harness, a profile's absolute command", () => {
    for (const harness of ['claude', 'codex', 'pi'] as const) expect(missingHarness(profile(harness), fakeHarnessPath, { PATH: clis })).toBeUndefined();
    expect(missingHarness(profile('fake'), fakeHarnessPath, { PATH: '' })).toBeUndefined();
    expect(missingHarness(profile('claude', { command: fakeHarnessPath }), fakeHarnessPath, { PATH: '' })).toBeUndefined();
    expect(resolveCommand('/no/such/claude')).toBeUndefined();
  });
});
