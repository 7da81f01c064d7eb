import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import {
  compareReleases,
  endingCommand,
  OLDEST_RUN_RELEASE,
  RELEASE,
  RELEASE_MEMO,
  refusalIn,
  refusalOf,
  releaseOfMemo,
  runsRunsOf,
} from '../../src/release.js';

const read = (file: string) =>
  JSON.parse(readFileSync(join(packageRoot(), file), 'utf8')) as { version: string; packages?: Record<string, { version?: string }> };

test("the release the code declares is package.json's version (and the lockfile's own), and 0.2.0 runs only its own runs", () => {
  expect(RELEASE).toBe(read('package.json').version);
  expect(read('package-lock.json').version).toBe(RELEASE);
  expect(read('package-lock.json').packages?.['']?.version).toBe(RELEASE);
  expect(RELEASE).toBe('0.2.0');
  expect(OLDEST_RUN_RELEASE).toBe('0.2.0');
});

test('a run with no release in its memo began on 0.1.0, which 0.2.0 does not run; one begun on 0.2.0 or later it runs', () => {
  expect(releaseOfMemo(undefined)).toBe('0.1.0');
  expect(releaseOfMemo({ identity: 'x' })).toBe('0.1.0');
  expect(releaseOfMemo({ [RELEASE_MEMO]: '0.2.0' })).toBe('0.2.0');
  expect(runsRunsOf('0.1.0')).toBe(false);
  expect(runsRunsOf('0.2.0')).toBe(true);
  // A release names its code after its version: the digest says which code, the version which runs it runs.
  const named = `0.2.0+${'0'.repeat(64)}`;
  expect(releaseOfMemo({ [RELEASE_MEMO]: named })).toBe(named);
  expect(runsRunsOf(named)).toBe(true);
  expect(runsRunsOf(`0.1.9+${'0'.repeat(64)}`)).toBe(false);
  expect(runsRunsOf('0.10.0')).toBe(true);
  expect(compareReleases('0.2.0', '0.10.0')).toBeLessThan(0);
  expect(compareReleases('1.0.0', '0.9.9')).toBeGreaterThan(0);
  expect(refusalOf({ workflowType: 'gateSweep', workflowId: 'gates/a1b2c3d4/GS-1', memo: { [RELEASE_MEMO]: RELEASE } })).toBeUndefined();
});

test('the refusal is one line naming the run, the release it began on and the command that ends it', () => {
  const line = refusalOf({ workflowType: 'gateSweep', workflowId: 'gates/a1b2c3d4/GS-1', memo: {} })!;
  expect(line).toBe(
    "run gates/a1b2c3d4/GS-1 began on release 0.1.0, which release 0.2.0 does not run (its oldest is 0.2.0): finish it on 0.1.0's workers, or end it with `commonplace review cancel gates/a1b2c3d4/GS-1`",
  );
  expect(line).not.toContain('\n');
  expect(refusalIn(`Failure { message: "${line}", source: "TypeScriptSDK" }`)).toBe(line);
});

test.each([
  ['gateSweep', 'gates/a1b2c3d4/GS-1', 'commonplace review cancel gates/a1b2c3d4/GS-1'],
  ['gateBatch', 'gates/a1b2c3d4/GS-1/batch-2-r1', 'commonplace review cancel gates/a1b2c3d4/GS-1'],
  ['gateBatch', 'compare/CMP-1/batch-1', 'commonplace review cancel compare/CMP-1'],
  ['gateBatch', 'compare/CMP-ab12cd34-0123456789/claude-pair/batch-2-r1', 'commonplace review cancel compare/CMP-ab12cd34-0123456789'],
  ['compareRun', 'compare/CMP-1', 'commonplace review cancel compare/CMP-1'],
  ['fullPass', 'full-pass/a1b2c3d4/kb/notes/x.md/0123456789ab', 'commonplace review cancel full-pass/a1b2c3d4/kb/notes/x.md/0123456789ab'],
  ['revise', 'revise/a1b2c3d4/kb/notes/x.md/0123456789ab', 'commonplace review cancel revise/a1b2c3d4/kb/notes/x.md/0123456789ab'],
  ['analysis', 'analysis/a1b2c3d4/AAS-2030-01-01-toy-01', 'commonplace analysis reset AAS-2030-01-01-toy-01'],
  ['probe', 'probe/x', 'temporal workflow terminate --workflow-id probe/x'],
  ['quotaGate', 'quota/claude/team', 'temporal workflow terminate --workflow-id quota/claude/team'],
])('a run of %s (%s) is ended with `%s`', (workflowType, workflowId, command) => {
  expect(endingCommand(workflowType, workflowId)).toBe(command);
});
