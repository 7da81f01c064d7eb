'use strict';
// protobufjs/light, loaded once a jest worker (test/helpers/test-environment.js).
module.exports = globalThis.__commonplaceShared('protobufjs/light');
