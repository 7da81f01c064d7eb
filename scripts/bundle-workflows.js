#!/usr/bin/env node
// The second step of `npm run build`: the compiled workflow code bundled once, with its interceptors,
// into dist/workflow-bundle.js beside a manifest of what it was built from (src/workflow-bundle.ts).
// Workers load it instead of running the bundler at every start.
import { writeWorkflowBundle } from '../dist/src/workflow-bundle.js';
import { workflowInterceptorModules, workflowsPath } from '../dist/src/workflow-code.js';

const started = Date.now();
const manifest = await writeWorkflowBundle({ workflowsPath, workflowInterceptorModules });
process.stderr.write(
  `workflow bundle: dist/workflow-bundle.js from ${Object.keys(manifest.sources).length} compiled modules in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
