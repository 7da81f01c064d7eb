#!/usr/bin/env node
// Runs Git for a long-lived worker process (src/fs/git.ts): one JSON request a line on stdin
// ({ id, cwd, args, env }), one JSON reply a line on stdout ({ id, stdout, stderr, code, error }).
// Git is started from this small process, not from the worker's: a fork copies the page tables of the
// process that forks, and every page that process writes afterwards faults once, so a Git read started
// from a worker of several hundred megabytes cost it far more than the read itself. Ends when its
// stdin closes and the Git it started has ended.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (!line) return;
  const { id, cwd, args, env } = JSON.parse(line);
  const child = spawn('git', ['-C', cwd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  const err = [];
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  let error;
  child.on('error', (cause) => {
    error = cause.message;
  });
  child.on('close', (code) => {
    reply({ id, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code, error });
  });
});
