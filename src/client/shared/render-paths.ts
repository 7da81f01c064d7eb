/** Place tokens (src/checkout/places.ts) as this machine's paths, or plain words where it has none; light (no SDK), as errors.ts prints through it. */
import { PLACE_PATTERN, placeWords } from '../../place-words.js';
import { packageRoot } from '../../paths.js';

interface KnownCheckout {
  root: string;
  worktrees: string;
}

/** The checkouts this command named (src/client/shared/checkout.ts tells them), by checkout ID. */
const checkouts = new Map<string, KnownCheckout>();

/** A checkout this command named: its tokens print as its paths here. */
export function knowCheckout(id: string, checkout: KnownCheckout): void {
  checkouts.set(id, checkout);
}

/** The root of the one checkout this command named, if it named exactly one. */
export function namedCheckout(): string | undefined {
  return checkouts.size === 1 ? [...checkouts.values()][0]!.root : undefined;
}

/** What a person reads: every place token as this host's path, or as words where this host has none. */
export function rendered(text: string): string {
  if (!text.includes('<')) return text;
  return text.replace(PLACE_PATTERN, (_token, kind?: string, id?: string, rest?: string, root?: string, rootRest?: string) => {
    if (root === 'package') return `${packageRoot()}${rootRest ?? ''}`;
    if (root === 'state') return placeWords(root, undefined, rootRest);
    const checkout = checkouts.get(id!);
    if (!checkout) return placeWords(kind!, id, rest);
    return `${kind === 'checkout' ? checkout.root : checkout.worktrees}${rest ?? ''}`;
  });
}

/** `--json`'s places: a named checkout's tokens as paths here, every other token kept so a script can tell where it lies. */
export function hostPaths(text: string): string {
  if (!text.includes('<')) return text;
  return text.replace(/<(checkout|worktrees):([0-9a-f]{8})>/g, (token, kind: string, id: string) => {
    const checkout = checkouts.get(id);
    if (!checkout) return token;
    return kind === 'checkout' ? checkout.root : checkout.worktrees;
  });
}
