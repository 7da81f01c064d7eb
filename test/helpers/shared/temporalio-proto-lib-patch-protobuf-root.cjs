'use strict';
// @temporalio/proto/lib/patch-protobuf-root, loaded once a jest worker (test/helpers/test-environment.js).
module.exports = globalThis.__commonplaceShared('@temporalio/proto/lib/patch-protobuf-root');
