import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import { validateDraft } from '../../src/kb/draft.js';
import { KbError } from '../../src/kb/errors.js';
import { copyToTemp, removeTemps, toyArtifact, toyFixture, treeDigest } from './helpers.js';

afterEach(removeTemps);

interface Toy {
  root: string;
  artifact: string;
  /** Writes a draft file outside the artifact, from a member of the artifact with `change` applied. */
  draft: (from: string, change?: (text: string) => string) => Promise<string>;
  edit: (member: string, change: (text: string) => string) => Promise<void>;
}

async function toy(): Promise<Toy> {
  const root = await copyToTemp(toyFixture, 'commonplace-draft-test-');
  const artifact = path.join(root, toyArtifact);
  await mkdir(path.join(root, 'drafts'));
  return {
    root,
    artifact,
    draft: async (from, change = (text) => text) => {
      const file = path.join(root, 'drafts', path.basename(from));
      await writeFile(file, change(await readFile(path.join(artifact, from), 'utf8')));
      return file;
    },
    edit: async (member, change) => {
      const file = path.join(artifact, member);
      await writeFile(file, change(await readFile(file, 'utf8')));
    },
  };
}

describe('role-scoped draft validation', () => {
  test("reports the draft's own findings: its schema, its citations and its identity", async () => {
    const { root, artifact, draft } = await toy();
    const file = await draft('runtime-report.md', (text) =>
      text.replace('(SRC-2)', '(SRC-9)').replace('run: AAS-2026-01-01-toy-01', 'run: AAS-2026-01-01-toy-02').replace('## Findings', '## Results'),
    );
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report' });
    expect(report.layout).toBe('kb/types/toy-analysis.layout.yaml');
    expect(report.findings.map(({ file: where, role, rule, line }) => ({ where, role, rule, line }))).toEqual([
      { where: 'drafts/runtime-report.md', role: 'runtime-report', rule: 'schema/contains', line: undefined },
      { where: 'drafts/runtime-report.md', role: 'runtime-report', rule: 'identity', line: 4 },
      { where: 'drafts/runtime-report.md', role: 'runtime-report', rule: 'cites', line: 13 },
    ]);
  });

  test("a sibling's defects are not attributed to the draft", async () => {
    const { root, artifact, draft, edit } = await toy();
    await edit('reports/lens-report.md', (text) => text.replace('run: AAS-2026-01-01-toy-01', 'run: wrong').replace('(SRC-2)', '(SRC-99)'));
    await edit('synthesis.md', (text) => text.replace('description: What the toy analysis concludes, drawn from both reports', 'description: short'));
    const file = await draft('runtime-report.md');
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report' });
    expect(report.findings).toEqual([]);
    // The siblings' findings were there in the working artifact, just not the draft's.
    expect(report.omitted.otherRoles).toBe(4);
  });

  test('absent members are not reported, nor citations that wait for an absent member', async () => {
    const { root, artifact, draft } = await toy();
    for (const member of ['runtime-report.md', 'report-verification.md', 'synthesis.md']) await rm(path.join(artifact, member));
    // The lens report cites RT-CMP-loop from the runtime report, which is not there yet.
    const file = await draft('reports/lens-report.md');
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'lens-report' });
    expect(report.findings).toEqual([]);
    expect(report.omitted.absent).toBe(1);
  });

  test('a draft for a member the artifact does not have yet is validated in place', async () => {
    const { root, artifact, draft } = await toy();
    const file = await draft('synthesis.md', (text) => text.replace('(RT-MEM-none)', '(RT-MEM-gone)'));
    await rm(path.join(artifact, 'synthesis.md'));
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'synthesis' });
    expect(report.findings.map((finding) => finding.message)).toEqual(['cited record RT-MEM-gone does not exist in runtime-report.md, reports/lens-report.md']);
  });

  test('a verifier draft is held to the verification protocol for the roles it was handed', async () => {
    const { root, artifact, draft } = await toy();
    const file = await draft('report-verification.md', (text) =>
      text.replace('## Blockers\n\nnone', '## Blockers\n\n- synthesis: not drawn from the reports\n- lens-report: RT-MEM-none is unsupported'),
    );
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'report-verification' });
    expect(report.findings.map(({ rule, line }) => ({ rule, line }))).toEqual([{ rule: 'verification/not-handed', line: 11 }]);
  });

  test('leaves the artifact directory byte-identical', async () => {
    const { root, artifact, draft, edit } = await toy();
    await edit('synthesis.md', (text) => text.replace('run: AAS-2026-01-01-toy-01', 'run: wrong'));
    const runDir = path.dirname(artifact);
    const before = await treeDigest(runDir);
    const file = await draft('runtime-report.md', (text) => `${text}\nA new paragraph citing SRC-1.\n`);
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report' });
    expect(report.findings).toEqual([]);
    expect(await treeDigest(runDir)).toEqual(before);
  });

  test('an undeclared role fails explicitly', async () => {
    const { root, artifact, draft } = await toy();
    const file = await draft('runtime-report.md');
    await expect(validateDraft({ repoRoot: root, draft: file, artifact, role: 'memory-profile' })).rejects.toMatchObject({
      code: 'undeclared-role',
      message: expect.stringContaining('role memory-profile is not declared by layout kb/types/toy-analysis.layout.yaml'),
    });
  });

  test('an unavailable type fails explicitly, whether the type spec or its schema is missing', async () => {
    const { root, artifact, draft } = await toy();
    const file = await draft('runtime-report.md');
    await rm(path.join(root, 'kb/types/member-base.schema.yaml'));
    const error = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KbError);
    expect(error).toMatchObject({
      code: 'type-unavailable',
      message:
        'role runtime-report cannot be validated: type kb/types/toy-report.md: schema kb/types/toy-report.schema.yaml is unavailable: $ref `./member-base.schema.yaml` at kb/types/toy-report.schema.yaml#/allOf/0: kb/types/member-base.schema.yaml does not exist',
    });
    await rm(path.join(root, 'kb/types/toy-verification.md'));
    await expect(validateDraft({ repoRoot: root, draft: await draft('report-verification.md'), artifact, role: 'report-verification' })).rejects.toMatchObject({
      code: 'type-unavailable',
      message: 'role report-verification cannot be validated: type kb/types/toy-verification.md does not exist',
    });
  });

  test('without a layout option or a layout in parameters.json it says how to name one', async () => {
    const { root, artifact, draft } = await toy();
    await writeFile(path.join(artifact, '../parameters.json'), JSON.stringify({ run: 'AAS-2026-01-01-toy-01' }));
    const file = await draft('runtime-report.md');
    await expect(validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report' })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('pass --layout FILE'),
    });
    const report = await validateDraft({ repoRoot: root, draft: file, artifact, role: 'runtime-report', layout: 'kb/types/toy-analysis.layout.yaml' });
    expect(report.findings).toEqual([]);
  });
});
