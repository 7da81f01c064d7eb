import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import { validateArtifact, type ArtifactReport } from '../../src/kb/artifact.js';
import { loadLayout } from '../../src/kb/layouts.js';
import { copyToTemp, removeTemps, toyArtifact, toyFixture } from './helpers.js';

afterEach(removeTemps);

/** A fresh toy checkout; `edit` rewrites artifact members before validation. */
async function validateToy(
  edit: (member: (file: string, change: (text: string) => string) => Promise<void>, dir: string) => Promise<void> = async () => {},
  options: { disposition?: 'published' | 'blocked' | 'out-of-scope' } = {},
): Promise<ArtifactReport> {
  const root = await copyToTemp(toyFixture, 'commonplace-artifact-');
  const dir = path.join(root, toyArtifact);
  await edit(async (file, change) => {
    const target = path.join(dir, file);
    await writeFile(target, change(await readFile(target, 'utf8')));
  }, dir);
  const layout = await loadLayout('kb/types/toy-analysis.layout.yaml', root);
  return validateArtifact(dir, { repoRoot: root, layout, ...options });
}

const brief = (report: ArtifactReport) =>
  report.findings.map(({ role, rule, file, line, absent }) => ({ role, rule, file, line, ...(absent ? { absent } : {}) }));

describe('artifact validation', () => {
  test('the toy artifact is clean, its disposition read from the boundary', async () => {
    const report = await validateToy();
    expect(report.findings).toEqual([]);
    expect(report.disposition).toBe('published');
    expect(report.dispositionSource).toBe('member');
    expect(report.members.every((member) => member.present)).toBe(true);
  });

  test('a cited record missing from the cited member fails on the citing role', async () => {
    const report = await validateToy((member) => member('runtime-report.md', (text) => text.replace('(SRC-2)', '(SRC-9)')));
    expect(brief(report)).toEqual([{ role: 'runtime-report', rule: 'cites', file: `${toyArtifact}/runtime-report.md`, line: 13 }]);
    expect(report.findings[0]?.message).toBe('cited record SRC-9 does not exist in boundary.md');
  });

  test('a record declared by a member the role may not cite fails too', async () => {
    // The runtime report cites only the boundary; RT-MEM-none is the lens report's.
    const report = await validateToy((member) => member('runtime-report.md', (text) => `${text}\nSee also RT-MEM-none.\n`));
    expect(report.findings.map((finding) => finding.message)).toEqual([
      'cites RT-MEM-none, declared by lens-report, which role runtime-report may not cite (it cites boundary)',
    ]);
  });

  test('a record in a quotation or a code fence is not a citation', async () => {
    const report = await validateToy((member) => member('runtime-report.md', (text) => `${text}\n> the README calls it SRC-7\n\n\`\`\`\nSRC-8\n\`\`\`\n`));
    expect(report.findings).toEqual([]);
  });

  test('an identity mismatch fails on the member whose field disagrees with the run', async () => {
    const report = await validateToy((member) =>
      member('reports/lens-report.md', (text) => text.replace('run: AAS-2026-01-01-toy-01', 'run: AAS-2026-01-01-toy-02')),
    );
    expect(brief(report)).toEqual([{ role: 'lens-report', rule: 'identity', file: `${toyArtifact}/reports/lens-report.md`, line: 4 }]);
    expect(report.findings[0]?.message).toBe('identity field `run` is "AAS-2026-01-01-toy-02", but the run\'s `run` is "AAS-2026-01-01-toy-01"');
  });

  test('identity cannot pass silently without run values', async () => {
    const report = await validateToy(async (_member, dir) => rm(path.join(dir, '../parameters.json')));
    expect(new Set(report.findings.map((finding) => finding.rule))).toEqual(new Set(['identity']));
    expect(report.findings).toHaveLength(5);
    expect(report.findings[0]?.message).toBe('cannot check identity field `run`: no parameters.json in the artifact or its run directory');
  });

  test('a verifier addressing a role it was not handed is refused', async () => {
    const report = await validateToy((member) =>
      member('report-verification.md', (text) =>
        text.replace('## Blockers\n\nnone', '## Blockers\n\n- synthesis: the conclusion is not drawn from the reports'),
      ),
    );
    expect(brief(report)).toEqual([{ role: 'report-verification', rule: 'verification/not-handed', file: `${toyArtifact}/report-verification.md`, line: 11 }]);
  });

  test('a verifier that does not follow the protocol is refused with every defect', async () => {
    const report = await validateToy((member) =>
      member('report-verification.md', (text) => text.replace('## Limits', '## Caveats').replace('## Blockers\n\nnone', '## Blockers\n\n- the loop is wrong')),
    );
    expect(report.findings.map((finding) => finding.rule)).toEqual(['verification/missing-section', 'verification/unaddressed']);
  });

  test('a required member absent under `published` is a finding, but not under `blocked`', async () => {
    const removeSynthesis = async (_member: unknown, dir: string) => rm(path.join(dir, 'synthesis.md'));
    const published = await validateToy(removeSynthesis);
    expect(brief(published)).toEqual([{ role: 'synthesis', rule: 'member-absent', file: `${toyArtifact}/synthesis.md`, line: undefined, absent: true }]);
    expect(published.findings[0]?.message).toBe('required member synthesis.md (role synthesis) is absent under disposition published');

    const blocked = await validateToy(async (member, dir) => {
      await removeSynthesis(member, dir);
      await member('boundary.md', (text) => text.replace('disposition: published', 'disposition: blocked'));
    });
    expect(blocked.disposition).toBe('blocked');
    expect(blocked.findings).toEqual([]);
  });

  test('the disposition passed by the caller wins over the member field', async () => {
    const report = await validateToy(async (_member, dir) => rm(path.join(dir, 'synthesis.md')), { disposition: 'out-of-scope' });
    expect(report.dispositionSource).toBe('option');
    expect(report.findings).toEqual([]);
  });

  test('an invalid disposition value is a finding on its member, and requiredness falls back to published', async () => {
    const report = await validateToy((member) => member('boundary.md', (text) => text.replace('disposition: published', 'disposition: done')));
    expect(report.disposition).toBe('published');
    expect(report.findings.map(({ role, rule }) => ({ role, rule }))).toEqual([
      { role: 'boundary', rule: 'disposition' },
      { role: 'boundary', rule: 'schema/enum' },
    ]);
  });

  test('a member is validated by its role type, and a member declaring another type is refused', async () => {
    const report = await validateToy((member) =>
      member('synthesis.md', (text) =>
        text.replace('type: kb/types/toy-report.md', 'type: kb/types/toy-verification.md').replace('## Findings', '## Conclusions'),
      ),
    );
    expect(report.findings.map(({ role, rule, message }) => ({ role, rule, message }))).toEqual([
      { role: 'synthesis', rule: 'schema/contains', message: '`headings` must include "## Findings"' },
      { role: 'synthesis', rule: 'member-type', message: 'declares type kb/types/toy-verification.md, but role synthesis takes kb/types/toy-report.md' },
    ]);
  });

  test('a member whose type cannot be loaded is a type-unavailable finding on its role', async () => {
    const report = await validateToy(async (_member, dir) => rm(path.join(dir, '../../../kb/types/toy-verification.md')));
    expect(report.findings.map(({ role, rule }) => ({ role, rule }))).toEqual([{ role: 'report-verification', rule: 'type-unavailable' }]);
    expect(report.findings[0]?.message).toBe('role report-verification: type kb/types/toy-verification.md does not exist');
  });
});
