// jest's moduleNameMapper entries for the modules the test environment loads once a jest worker
// (test/helpers/test-environment.js): each name to its file under test/helpers/shared/.
import { mapperEntry } from './dependency-bundles.js';
import { SHARED } from './test-environment.js';

export function sharedMapper() {
  return Object.fromEntries(SHARED.map((specifier) => mapperEntry(specifier, 'test/helpers/shared')));
}
