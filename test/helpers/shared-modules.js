// jest's moduleNameMapper entries for the modules the test environment loads once a jest worker
// (test/helpers/test-environment.js): each name to its file under test/helpers/shared/.
import { SHARED } from './test-environment.js';

export const sharedFile = (specifier) => `${specifier.replace(/[^a-z0-9]+/gi, '-').replace(/^-/, '')}.cjs`;

export function sharedMapper() {
  return Object.fromEntries(
    SHARED.map((specifier) => [`^${specifier.replace(/[/.]/g, (c) => `\\${c}`)}$`, `<rootDir>/test/helpers/shared/${sharedFile(specifier)}`]),
  );
}
