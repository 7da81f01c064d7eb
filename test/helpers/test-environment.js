// The test files' environment: jest's Node environment, with the Temporal API's protobuf types loaded once a
// jest worker and handed to every file it runs, where jest would build them anew for each file.
//
// Jest gives every test file a module registry of its own. `@temporalio/proto` builds its 1,300 protobuf types
// from one JSON module as it loads (and generates each type's code the first time a message of it is encoded or
// decoded): about 0.3 CPU s a file that starts a worker or a client, nearly the same work in every file. The
// types hold no state of a test: they are loaded here, outside the files' registries, with the protobufjs they
// are built with (`protobufjs/light` and its JSON extension, which `@temporalio/common` uses on the same
// types), and each file's `require` of them is mapped to test/helpers/shared/ (jest.config.js). Only what
// SHARED names is loaded so; everything else a file reaches is its own. docs/testing.md, "The protobuf types
// once a jest worker".
import { TestEnvironment } from 'jest-environment-node';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What the files share, by the name they require it by. */
export const SHARED = ['@temporalio/proto', '@temporalio/proto/lib/patch-protobuf-root', 'protobufjs/light', 'protobufjs/ext/protojson'];
const loaded = new Map();

function shared(specifier) {
  if (!SHARED.includes(specifier)) throw new Error(`test/helpers/test-environment.js: ${specifier} is not one of the shared modules`);
  if (!loaded.has(specifier)) loaded.set(specifier, require(specifier));
  return loaded.get(specifier);
}

export default class CommonplaceEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__commonplaceShared = shared;
  }
}
