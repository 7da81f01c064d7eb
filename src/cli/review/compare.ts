/** `commonplace review compare …`: the compare parent and its subcommands (label, keep). Registration only. */
import type { Command } from 'commander';
import { registerCompareLabel } from './compare-label.js';
import { registerCompareKeep } from './compare-keep.js';

/** Adds `review compare` with its subcommands; the compare run itself is registered on the command this returns. */
export function registerCompare(review: Command): Command {
  const compare = review.command('compare').description('compare routes (profile, grouping, batch) on one sample of pairs: agreement and κ per criterion; label disagreements; keep calibration records');
  registerCompareLabel(compare);
  registerCompareKeep(compare);
  return compare;
}
