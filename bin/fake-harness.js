#!/usr/bin/env node
// The fake harness: a real executable that stands in for claude/codex/pi in tests and the demo.
// It reads its prompt on stdin, follows a scenario file, and records every invocation in a ledger.
//
// Environment: COMMONPLACE_FAKE_SCENARIO (scenario file, YAML or JSON; optional)
//              COMMONPLACE_FAKE_LEDGER   (ledger file, JSON lines; optional)
// Scenario:    { ledger?: <path, relative to the scenario; templated>, launches: [ { match?: <regex on the prompt>, attempts: [ <attempt>, ... ] } ] }
// Attempt:     { outputs?: {path: text}, writeDeclared?: text, exitCode?: n, stdout?: text, stderr?: text,
//                usageLimit?: text, delayMs?: n, hang?: true, writeOutside?: {path: text},
//                waitForFile?: path (the launch waits until the file exists),
//                events?: [object | text] (stdout lines written one by one, before anything else but delayMs, eventDelayMs?: n apart),
//                costUsd?: n (the cost it reports; default 0), tokens?: {input, output} (default: a quarter of the prompt's characters, 42),
//                review?: pass|warn|fail|report, outcomes?: {criterion: outcome}, skip?: [criterion], malformed?: [criterion] }
// `review` answers a review prompt: a review of each `criterion = <id>` line of the prompt, ending in its
// result line (one `## <id>` section per criterion when the prompt says `grouping = bundle`).
// Templating: `{{name}}` in the texts of `outputs`, `writeOutside` and `writeDeclared` is replaced by the
// value of the prompt's first `name = value` line (`{{run}}`, `{{source}}`, `{{system}}`); a name the
// prompt has no line for writes nothing and exits 2 with a message naming it.
// The n-th invocation matching a rule plays its n-th attempt (the last one repeats). Without a
// scenario every declared output (`output = <path>` lines of the prompt) is written and it exits 0:
// a review job (`job = gate-review`) gets a plain passing review in the result-line form (`review: pass`,
// or `report` when the prompt asks for `Result: report`), any other job the text `fake output`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function readStdin() {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

function declaredOutputs(prompt) {
  const paths = [];
  for (const line of prompt.split('\n')) {
    const match = /^outputs?\s*=\s*(.+)$/.exec(line.trim());
    if (match)
      paths.push(
        ...match[1]
          .split(',')
          .map((path) => path.trim())
          .filter(Boolean),
      );
  }
  return paths;
}

function reviewText(prompt, attempt) {
  const criteria = [];
  for (const line of prompt.split('\n')) {
    const match = /^criterion\s*=\s*(\S+)/.exec(line.trim());
    if (match) criteria.push(match[1]);
  }
  const bundle = /^grouping\s*=\s*bundle\s*$/m.test(prompt);
  const skip = new Set(attempt.skip ?? []);
  const malformed = new Set(attempt.malformed ?? []);
  const sections = criteria
    .filter((id) => !skip.has(id))
    .map((id) => {
      const outcome = attempt.outcomes?.[id] ?? attempt.review;
      const verdict = malformed.has(id) ? `Verdict: ${outcome}` : `Result: ${outcome}`;
      const text = `The fake harness reviewed ${id}; no model was asked.\n\n${verdict}\n`;
      return bundle ? `## ${id}\n\n${text}` : text;
    });
  return `${sections.join('\n')}`;
}

/** Without a scenario, a review job gets a plain passing review (a report for report criteria), so `--profile fake` reviews any KB. */
function plainReview(prompt) {
  return { review: /one result line: `Result: report`/.test(prompt) ? 'report' : 'pass' };
}

/** The prompt's `name = value` lines (the first of each name), for templating. */
function promptLines(prompt) {
  const values = new Map();
  for (const line of prompt.split('\n')) {
    const match = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*) = (.*)$/.exec(line.replace(/\r$/, ''));
    if (match && !values.has(match[1])) values.set(match[1], match[2]);
  }
  return values;
}

const TEMPLATE = /\{\{([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\}\}/g;

/** Fills `{{name}}` from the prompt's lines; the names without a line are collected in `unknown`. */
function fill(text, values, unknown) {
  return String(text).replace(TEMPLATE, (whole, name) => {
    if (values.has(name)) return values.get(name);
    unknown.add(name);
    return whole;
  });
}

function withLock(file, action) {
  const lock = `${file}.lock`;
  for (let tries = 0; ; tries++) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST' || tries > 2000) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
  try {
    return action();
  } finally {
    rmdirSync(lock);
  }
}

// Only whole lines: another launch may be appending its entry (outside the lock) as this one reads.
function readLedger(file) {
  try {
    const text = readFileSync(file, 'utf8');
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

function writeAtomic(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.fake-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

const prompt = readStdin();
const scenarioPath = process.env.COMMONPLACE_FAKE_SCENARIO;
const scenarioText = scenarioPath ? readFileSync(scenarioPath, 'utf8') : '';
// JSON scenarios skip loading the YAML parser, which is most of this executable's start-up time.
const scenario = !scenarioPath ? {} : /\.json$/.test(scenarioPath) ? JSON.parse(scenarioText) : ((await import('yaml')).parse(scenarioText) ?? {});
// The ledger is named by the environment or by the scenario itself (so a scenario handed to a remote worker keeps its ledger).
// The scenario's `ledger` is templated like output texts, so `{{capture}}/../fake-ledger.jsonl` keeps one ledger per analysis run.
function scenarioLedger() {
  if (!scenario.ledger) return undefined;
  const unknown = new Set();
  const ledger = fill(scenario.ledger, promptLines(prompt), unknown);
  if (unknown.size > 0) {
    process.stderr.write(
      `fake-harness: the scenario's ledger ${scenario.ledger} uses ${[...unknown].map((name) => `{{${name}}}`).join(', ')}, but the prompt has no such \`name = value\` line\n`,
    );
    process.exit(2);
  }
  return resolve(dirname(scenarioPath), ledger);
}
const ledgerPath = process.env.COMMONPLACE_FAKE_LEDGER ?? scenarioLedger();
const rules = Array.isArray(scenario.launches) ? scenario.launches : [];
const ruleIndex = rules.findIndex((rule) => !rule.match || new RegExp(rule.match, 'm').test(prompt));
const rule = ruleIndex >= 0 ? rules[ruleIndex] : { attempts: [{}] };
const promptSha256 = createHash('sha256').update(prompt).digest('hex');

let attemptIndex = 0;
if (ledgerPath) {
  mkdirSync(dirname(resolve(ledgerPath)), { recursive: true });
  attemptIndex = withLock(ledgerPath, () => {
    const index = readLedger(ledgerPath).filter((entry) => entry.event === 'start' && entry.rule === ruleIndex).length;
    appendFileSync(
      ledgerPath,
      `${JSON.stringify({ event: 'start', rule: ruleIndex, attempt: index, pid: process.pid, cwd: process.cwd(), argv: process.argv.slice(2), promptSha256, at: new Date().toISOString() })}\n`,
    );
    return index;
  });
}
const attempts = Array.isArray(rule.attempts) && rule.attempts.length > 0 ? rule.attempts : [{}];
const attempt = !scenarioPath && /^job = gate-review$/m.test(prompt) ? plainReview(prompt) : (attempts[Math.min(attemptIndex, attempts.length - 1)] ?? {});

function record(event, extra) {
  if (ledgerPath)
    appendFileSync(
      ledgerPath,
      `${JSON.stringify({ event, rule: ruleIndex, attempt: attemptIndex, pid: process.pid, at: new Date().toISOString(), ...extra })}\n`,
    );
}

if (attempt.delayMs) await sleep(attempt.delayMs);
// A harness's event stream played line by line, so a launch sees it while it runs.
for (const event of Array.isArray(attempt.events) ? attempt.events : []) {
  process.stdout.write(`${typeof event === 'string' ? event : JSON.stringify(event)}\n`);
  if (attempt.eventDelayMs) await sleep(attempt.eventDelayMs);
}

// Held open until a file exists (after its events): a test decides when this launch ends (a state, not a duration).
if (attempt.waitForFile) {
  record('waiting', { file: attempt.waitForFile });
  while (!existsSync(attempt.waitForFile)) await sleep(50);
}

if (attempt.hang) {
  const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
  record('hang', { childPid: child.pid });
  setInterval(() => {}, 1 << 30);
} else {
  // Every text is filled before anything is written, so an unknown name writes nothing.
  const values = promptLines(prompt);
  const unknown = new Set();
  const outputs = Object.entries(attempt.outputs ?? {}).map(([path, text]) => [path, fill(text, values, unknown)]);
  const outside = Object.entries(attempt.writeOutside ?? {}).map(([path, text]) => [path, fill(text, values, unknown)]);
  const declaredText =
    attempt.writeDeclared !== undefined
      ? fill(attempt.writeDeclared, values, unknown)
      : attempt.review
        ? reviewText(prompt, attempt)
        : attempt.outputs || attempt.usageLimit || attempt.exitCode
          ? undefined
          : 'fake output\n';
  if (unknown.size > 0) {
    const names = [...unknown].map((name) => `{{${name}}}`).join(', ');
    process.stderr.write(
      `fake-harness: rule ${ruleIndex} attempt ${attemptIndex + 1} uses ${names}, but the prompt has no such \`name = value\` line (it has: ${[...values.keys()].join(', ') || 'none'}); nothing was written\n`,
    );
    record('end', { exitCode: 2, error: 'unknown-template' });
    process.exit(2);
  }
  for (const [path, text] of outputs) writeAtomic(resolve(path), text);
  for (const [path, text] of outside) writeAtomic(resolve(path), text);
  if (declaredText !== undefined) for (const path of declaredOutputs(prompt)) writeAtomic(resolve(path), String(declaredText));

  const exitCode = attempt.exitCode ?? (attempt.usageLimit ? 1 : 0);
  if (attempt.stdout !== undefined) process.stdout.write(String(attempt.stdout));
  else if (attempt.usageLimit) process.stdout.write(`${attempt.usageLimit}\n`);
  else {
    const usage = { input_tokens: attempt.tokens?.input ?? Math.ceil(prompt.length / 4), output_tokens: attempt.tokens?.output ?? 42 };
    process.stdout.write(`${JSON.stringify({ type: 'fake-result', model: attempt.model ?? 'fake-model-1', usage, cost_usd: attempt.costUsd ?? 0 })}\n`);
  }
  if (attempt.stderr !== undefined) process.stderr.write(String(attempt.stderr));
  record('end', { exitCode });
  process.exitCode = exitCode;
}
