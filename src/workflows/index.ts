export { probe } from './probe.js';
export { gateSweep } from './gate-sweep.js';
export { gateBatch } from './gate-batch.js';
export { analysis } from './analysis.js';
export { fullPass } from './full-pass.js';
export { revise } from './revise.js';
export { quotaGate } from './quota-gate.js';
export { compareRun } from './compare.js';
