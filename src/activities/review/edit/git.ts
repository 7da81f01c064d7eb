/** The checkout guard's Git reads, each reported path hashed (ADR 127); a failed read is an answer here, not an error. */
import { ApplicationFailure } from '@temporalio/common';
import path from 'node:path';
import { sha256File } from '../../../fs/digest.js';
import { runGit } from '../../../fs/git.js';
import { guardExcluded, type GuardSnapshot } from '../../../review/edit/guard.js';

function notAWorkTree(checkout: string, detail: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'bad-edit-input',
    nonRetryable: true,
    message: `the checkout guard needs Git: ${checkout} is not a Git working tree (${detail.trim().split('\n')[0]}); run \`git init\` and commit the KB first`,
  });
}

/** Where the checkout sits inside its repository (`""` when it is the repository root). */
async function prefixOf(checkout: string): Promise<string> {
  const result = await runGit(checkout, ['rev-parse', '--show-prefix']);
  if (result.exitCode !== 0) throw notAWorkTree(checkout, result.stderr);
  return result.stdout.trim();
}

/** The checkout's state now: HEAD, and every modified or untracked path outside review state with its bytes' digest. */
export async function gitSnapshot(checkout: string): Promise<GuardSnapshot> {
  // One rev-parse answers both where the checkout sits and its HEAD (exit 1 when there is no commit yet):
  // the guard reads before and after every launch, and each Git process costs a fork of the worker.
  const place = await runGit(checkout, ['rev-parse', '--show-prefix', '--verify', '-q', 'HEAD']);
  if (place.exitCode !== 0 && place.exitCode !== 1) throw notAWorkTree(checkout, place.stderr);
  const [prefix = '', headLine] = place.stdout.split('\n');
  const head = place.exitCode === 0 && headLine ? headLine.trim() : null;
  const status = await runGit(checkout, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', '.']);
  if (status.exitCode !== 0) throw notAWorkTree(checkout, status.stderr);
  const entries: Record<string, string> = {};
  for (const record of status.stdout.split('\0')) {
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    const repoPath = record.slice(3);
    if (!repoPath.startsWith(prefix)) continue;
    const file = repoPath.slice(prefix.length);
    if (guardExcluded(file)) continue;
    const digest = await sha256File(path.join(checkout, ...file.split('/'))).catch(() => 'absent');
    entries[file] = `${code}:${digest}`;
  }
  return { head, entries };
}

/** The checkout paths commits between two HEADs touched. */
export async function committedBetween(checkout: string, from: string | null, to: string | null): Promise<string[]> {
  if (from === to) return [];
  if (from === null || to === null) return ['(HEAD)'];
  const prefix = await prefixOf(checkout);
  const diff = await runGit(checkout, ['diff', '--name-only', '-z', from, to, '--', '.']);
  if (diff.exitCode !== 0) return ['(HEAD)'];
  return diff.stdout
    .split('\0')
    .filter(Boolean)
    .filter((file) => file.startsWith(prefix))
    .map((file) => file.slice(prefix.length));
}
