// Reads jest's --json results and prints, last, the one summary line CI reads: "N passed, N failed".
// Above it: the slowest test files with their seconds, and every file over the budget by name (a slow
// file is seen the day it appears; docs/testing.md says how to bring one back under it).
// A suite that failed to run (a syntax error, a failing hook) counts as a failure of its own.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const budgetSeconds = Number(process.env.COMMONPLACE_TEST_FILE_BUDGET) || 90;
const slowestShown = 15;

const file = process.argv[2];
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const seconds = (suite) => {
  const start = suite.perfStats?.start ?? suite.startTime;
  const end = suite.perfStats?.end ?? suite.endTime;
  return start && end ? (end - start) / 1000 : 0;
};
const files = results.testResults
  .map((suite) => ({ name: relative(process.cwd(), suite.name), seconds: seconds(suite), tests: suite.assertionResults.length }))
  .sort((a, b) => b.seconds - a.seconds);
if (files.length > 0) {
  const total = files.reduce((sum, entry) => sum + entry.seconds, 0);
  console.log(`slowest test files (of ${files.length}; ${Math.round(total)} s summed over files):`);
  for (const entry of files.slice(0, slowestShown)) {
    const over = entry.seconds > budgetSeconds ? '  OVER BUDGET' : '';
    console.log(`${entry.seconds.toFixed(1).padStart(8)} s  ${entry.name} (${entry.tests} tests)${over}`);
  }
  const overBudget = files.filter((entry) => entry.seconds > budgetSeconds);
  if (overBudget.length > 0) {
    console.log(
      `${overBudget.length} file(s) over the ${budgetSeconds} s budget: ${overBudget.map((entry) => `${entry.name} (${Math.round(entry.seconds)} s)`).join(', ')}`,
    );
  } else {
    console.log(`no file over the ${budgetSeconds} s budget`);
  }
}

const passed = results.numPassedTests;
const brokenSuites = results.testResults.filter(
  (suite) => suite.status === 'failed' && suite.assertionResults.every((test) => test.status !== 'failed'),
).length;
const failed = results.numFailedTests + brokenSuites + (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || !results.success ? 1 : 0);
