'use strict';
// protobufjs/ext/protojson, loaded once a jest worker (test/helpers/test-environment.js).
module.exports = globalThis.__commonplaceShared('protobufjs/ext/protojson');
