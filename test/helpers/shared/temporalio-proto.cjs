'use strict';
// @temporalio/proto, loaded once a jest worker (test/helpers/test-environment.js).
module.exports = globalThis.__commonplaceShared('@temporalio/proto');
