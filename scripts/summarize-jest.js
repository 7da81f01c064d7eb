// Reads jest's --json results and prints the one summary line CI reads: "N passed, N failed".
// A suite that failed to run (a syntax error, a failing hook) counts as a failure of its own.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = results.numPassedTests;
const brokenSuites = results.testResults.filter((suite) => suite.status === 'failed' && suite.assertionResults.every((test) => test.status !== 'failed')).length;
const failed = results.numFailedTests + brokenSuites + (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || !results.success ? 1 : 0);
