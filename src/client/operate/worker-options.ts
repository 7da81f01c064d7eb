/** Options `commonplace worker` and `commonplace dev` share, read at the boundary (light: no SDK). */
import { delimiter } from 'node:path';
import { UserError } from '../shared/errors.js';

/** `--max-launches` as a number, or the one-line error naming it. */
export function maxLaunchesOption(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UserError(`--max-launches must be a positive whole number, got "${value}"`);
  return Number(value);
}

/** The checkouts `--kb` names (repeatable), after those of COMMONPLACE_KB (directories separated like PATH). */
export function kbDirectories(named: string[]): string[] {
  const fromEnv = (process.env.COMMONPLACE_KB ?? '').split(delimiter).filter((dir) => dir !== '');
  return [...new Set([...fromEnv, ...named])];
}
