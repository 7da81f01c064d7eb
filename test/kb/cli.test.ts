import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { DISPOSITIONS } from '../../src/kb/layouts.js';
import { DISPOSITION_NAMES } from '../../src/client/operate/validate.js';
import { copyToTemp, corpusFixture, removeTemps, toyArtifact, toyFixture, treeDigest } from './helpers.js';

/** Runs `commonplace validate` (the built bin/commonplace.js; `npm run build` first) in `cwd`; execa drops the final newline. */
async function commonplace(args: string[], cwd: string) {
  const run = await runCli(['validate', ...args], { cwd, env: { NO_COLOR: '1' } });
  return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr) };
}

let corpus: string;
let toy: string;

beforeAll(async () => {
  corpus = await copyToTemp(corpusFixture, 'commonplace-cli-corpus-');
  toy = await copyToTemp(toyFixture, 'commonplace-cli-toy-');
  // The toy checkout is a Git root, so the command finds it from a subdirectory.
  await mkdir(path.join(toy, '.git'));
  await mkdir(path.join(toy, 'drafts'));
  await writeFile(
    path.join(toy, 'kb/notes/bad.md'),
    '---\ntype: kb/types/toy-report.md\ndescription: A note of the toy KB that lacks its run field\n---\n\n# Bad\n',
  );
});
afterAll(removeTemps);

describe('commonplace validate', () => {
  describe('run with --kb and nothing else', () => {
    let run: Awaited<ReturnType<typeof commonplace>>;
    beforeAll(async () => {
      run = await commonplace(['--kb', corpus], '/');
    });

    test('validates the whole KB, ending with a summary of its files, failures and warnings', () => {
      // One schema warning and 665 broken-link warnings (links out of the vendored excerpt: docs/validation.md, Base checks).
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('430 files (411 notes, 10 plain text, 9 schemas): 0 failures, 666 warnings');
    });

    test('prints problems only: a plain-text file is not listed', () => {
      expect(run.stdout).not.toContain('kb/README.md');
    });

    test('prints a warning under its file, with its line', () => {
      expect(run.stdout).toContain(
        'kb/notes/out-of-spec-output-is-a-failure-of-the-interpreter-not-the-spec.md\n     2  warn  description should be at most 250 characters',
      );
    });

    test('exits 0 when there are only warnings, printing nothing on stderr', () => {
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
    });
  });

  describe('run from a subdirectory of the checkout with a glob matching a failing note', () => {
    let run: Awaited<ReturnType<typeof commonplace>>;
    beforeAll(async () => {
      run = await commonplace(['../notes/*.md'], path.join(toy, 'kb/types'));
    });

    test('finds the checkout and resolves the glob from the working directory', () => {
      expect(run.stdout.split('\n').at(-1)).toBe('2 files (2 notes): 2 failures in 1 file, 0 warnings');
    });

    test('groups the failures under their file, each with its line and rule', () => {
      expect(run.stdout).toBe(
        [
          'kb/notes/bad.md',
          '        fail  `headings` must include "## Findings"  [schema/contains]',
          '     1  fail  frontmatter `run` is required  [schema/required]',
          '',
          '2 files (2 notes): 2 failures in 1 file, 0 warnings',
        ].join('\n'),
      );
    });

    test('exits 1 on failures', () => {
      expect(run.exitCode).toBe(1);
    });
  });

  test('prints one validate-files JSON document with --json', async () => {
    const run = await commonplace(['--json', 'kb/notes/bad.md'], toy);
    expect(run.exitCode).toBe(1);
    const output = expectShape(run.stdout, 'validate-files') as unknown as {
      mode: string;
      summary: { failures: number };
      files: { file: string; findings: { rule: string }[] }[];
    };
    expect(output.mode).toBe('files');
    expect(output.summary.failures).toBe(2);
    expect(output.files.map((file) => file.file)).toEqual(['kb/notes/bad.md']);
    expect(output.files[0]?.findings.map((finding) => finding.rule)).toEqual(['schema/contains', 'schema/required']);
  });

  describe('a draft validated in its role', () => {
    let before: Record<string, string>;
    let failing: Awaited<ReturnType<typeof commonplace>>;
    let clean: Awaited<ReturnType<typeof commonplace>>;
    let after: Record<string, string>;
    beforeAll(async () => {
      const artifact = path.join(toy, toyArtifact);
      before = await treeDigest(path.dirname(artifact));
      await writeFile(
        path.join(toy, 'drafts/runtime-report.md'),
        (await readFile(path.join(artifact, 'runtime-report.md'), 'utf8')).replace('(SRC-2)', '(SRC-9)'),
      );
      failing = await commonplace(['drafts/runtime-report.md', '--artifact', toyArtifact, '--role', 'runtime-report'], toy);
      clean = await commonplace(
        [
          '--json',
          path.join(artifact, 'runtime-report.md'),
          '--artifact',
          artifact,
          '--role',
          'runtime-report',
          '--layout',
          'kb/types/toy-analysis.layout.yaml',
        ],
        toy,
      );
      after = await treeDigest(path.dirname(artifact));
    });

    test('a failing draft is reported against its role, layout and disposition, and exits 1', () => {
      expect(failing.exitCode).toBe(1);
      expect(failing.stdout).toBe(
        [
          `drafts/runtime-report.md as runtime-report (runtime-report.md) of ${toyArtifact}, layout kb/types/toy-analysis.layout.yaml, disposition published`,
          '    13  fail  cited record SRC-9 does not exist in boundary.md  [cites]',
          '',
          'draft runtime-report: 1 failure, 0 warnings',
        ].join('\n'),
      );
    });

    test('a clean draft with --json and --layout exits 0 and prints a validate-draft document with no findings', () => {
      expect(clean.exitCode).toBe(0);
      expect(expectShape(clean.stdout, 'validate-draft')).toMatchObject({
        mode: 'draft',
        role: 'runtime-report',
        findings: [],
        summary: { failures: 0, warnings: 0 },
      });
    });

    test('validating drafts leaves the artifact untouched', () => {
      expect(after).toEqual(before);
    });
  });

  test.each([
    {
      name: '--artifact without --role',
      args: ['drafts/x.md', '--artifact', toyArtifact],
      stderr: 'commonplace: --artifact and --role go together: commonplace validate <draft> --artifact <dir> --role <role>',
    },
    {
      name: 'two drafts',
      args: ['a.md', 'b.md', '--artifact', toyArtifact, '--role', 'synthesis'],
      stderr: 'commonplace: draft validation takes exactly one draft file, got 2',
    },
    {
      name: 'an undeclared role',
      args: [`${toyArtifact}/synthesis.md`, '--artifact', toyArtifact, '--role', 'nobody'],
      stderr: 'commonplace: role nobody is not declared by layout kb/types/toy-analysis.layout.yaml',
    },
    { name: 'a path that does not exist', args: ['kb/nowhere.md'], stderr: 'commonplace: kb/nowhere.md: no such file or directory' },
    { name: 'a glob that matches nothing', args: ['kb/**/*.txt'], stderr: 'commonplace: kb/**/*.txt matches no note, schema or layout file' },
    { name: 'a path outside the checkout', args: ['/etc/hostname'], stderr: 'commonplace: /etc/hostname is outside the checkout' },
    { name: 'an unknown option', args: ['--frobnicate'], stderr: "error: unknown option '--frobnicate'" },
  ])('a usage error exits 1 with a one-line message: $name', async ({ args, stderr }) => {
    const run = await commonplace(args, toy);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toContain(stderr);
  });

  test('a draft whose role type is unavailable is a failure (exit 1), not a usage error', async () => {
    const broken = await copyToTemp(toyFixture, 'commonplace-cli-broken-');
    await writeFile(path.join(broken, 'kb/types/toy-report.schema.yaml'), 'allOf:\n  - $ref: ./gone.schema.yaml\n');
    const run = await commonplace([`${toyArtifact}/synthesis.md`, '--artifact', toyArtifact, '--role', 'synthesis', '--kb', '.'], broken);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      'commonplace: role synthesis cannot be validated: type kb/types/toy-report.md: schema kb/types/toy-report.schema.yaml is unavailable: $ref `./gone.schema.yaml` at kb/types/toy-report.schema.yaml#/allOf/0: kb/types/gone.schema.yaml does not exist',
    );
  });
});

test("the dispositions validate's help names are the layouts' own", () => {
  expect([...DISPOSITION_NAMES]).toEqual([...DISPOSITIONS]);
});
