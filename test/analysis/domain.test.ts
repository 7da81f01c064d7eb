import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DECLARED_CHECKS, FEEDBACK } from '../../src/analysis/checks.js';
import { declaredRecords } from '../../src/analysis/records.js';
import { formatRunId, nextRunId, parseRunId, runDate, systemSlug } from '../../src/analysis/run-id.js';
import { get, put, storedFile } from '../../src/fs/store.js';
import { freezeSource, treeDigest } from '../../src/activities/analysis/source.js';
import type { RunParameters } from '../../src/analysis/parameters.js';
import { member, scratch, sourceFixture } from './helpers.js';

const pattern = 'SRC-[0-9]+|RT-[A-Z]+-[a-z][a-z0-9-]*';

describe('run IDs', () => {
  test.each([
    ['Dynamic Cheatsheet', 'dynamic-cheatsheet'],
    ['  Agno AgentOS!! ', 'agno-agentos'],
    ['Café_Système v2', 'cafe-systeme-v2'],
    ['***', ''],
  ])('the system %j is written %j in run IDs', (system, slug) => {
    expect(systemSlug(system)).toBe(slug);
  });

  test('the next run ID takes the next free number for that day and system only', () => {
    expect(nextRunId('2030-01-02', 'toy', [])).toBe('AAS-2030-01-02-toy-01');
    expect(
      nextRunId('2030-01-02', 'toy', ['AAS-2030-01-02-toy-01', 'AAS-2030-01-02-toy-03', 'AAS-2030-01-01-toy-07', 'AAS-2030-01-02-toy-box-09', 'junk']),
    ).toBe('AAS-2030-01-02-toy-04');
    expect(parseRunId(formatRunId('2030-01-02', 'toy-box', 12))).toEqual({ date: '2030-01-02', slug: 'toy-box', sequence: 12 });
    expect(runDate(new Date(2030, 0, 2, 23, 59))).toBe('2030-01-02');
  });
});

describe('declared checks and feedback', () => {
  const run = 'AAS-2030-01-01-toy-01';
  const context = (text: string, incumbent?: string) => ({ role: 'runtime-report', text, incumbent, recordId: pattern });

  test('records-declared refuses a member that declares no record', () => {
    expect(DECLARED_CHECKS['records-declared']?.(context(member['runtime-report'](run)))).toEqual([]);
    expect(DECLARED_CHECKS['records-declared']?.(context(member['runtime-report'](run).replace('### RT-CMP-loop', '### The loop')))[0]?.message).toMatch(
      /declares no record/,
    );
  });

  test('keeps-records refuses a correction that drops a record its accepted version declared', () => {
    const accepted = member['runtime-report'](run);
    expect(DECLARED_CHECKS['keeps-records']?.(context(member['runtime-report'](run, { text: 'Reworded (SRC-1).' }), accepted))).toEqual([]);
    expect(DECLARED_CHECKS['keeps-records']?.(context(member['runtime-report'](run, { record: 'RT-CMP-main' }), accepted))).toEqual([
      { rule: 'keeps-records', message: "drops record RT-CMP-loop that the accepted version declared; keep it (correct the record's text instead)" },
    ]);
    expect(DECLARED_CHECKS['keeps-records']?.(context(member['runtime-report'](run, { record: 'RT-CMP-main' })))).toEqual([]);
  });

  test('no-open-markers refuses TODO, TBD, FIXME and XXX with their lines, but not in fenced code', () => {
    const text = `${member['runtime-report'](run)}\nTBD: the output.\n\n\`\`\`\n// TODO in code is fine\n\`\`\`\n`;
    const findings = DECLARED_CHECKS['no-open-markers']?.(context(text)) ?? [];
    expect(findings.map((finding) => [finding.line, finding.message])).toEqual([
      [text.split('\n').indexOf('TBD: the output.') + 1, 'leaves `TBD` in the text: finish the point or drop it'],
    ]);
  });

  test('record-ids lists the records each cited member declares; member-type points back to the type', () => {
    const cited = { boundary: member.boundary(run, 'x'), 'runtime-report': member['runtime-report'](run) };
    expect(FEEDBACK['record-ids']?.({ role: 'lens-memory', type: 't', recordId: pattern, cited })).toBe(
      'Records you may cite, as the members you were handed declare them:\n\n- boundary: SRC-1, SRC-2\n- runtime-report: RT-CMP-loop',
    );
    expect(FEEDBACK['member-type']?.({ role: 'x', type: 'kb/types/toy-report.md', recordId: undefined, cited: {} })).toMatch(
      /^Your member type is kb\/types\/toy-report\.md; where it and the job instruction differ, the type wins/,
    );
    expect(declaredRecords('| SRC-1 | a |\n\nMentions SRC-2 only.\n### RT-A-b — x', pattern)).toEqual(['SRC-1', 'RT-A-b']);
  });
});

describe('the content-addressed store', () => {
  test('bytes are stored under their SHA-256, and a read of an altered entry names the file', async () => {
    const runDir = await scratch();
    const digest = await put(runDir, 'hello\n');
    expect(digest).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03');
    expect((await get(runDir, digest)).toString()).toBe('hello\n');
    expect(await put(runDir, 'hello\n')).toBe(digest);
    await writeFile(storedFile(runDir, digest), 'tampered\n');
    await expect(get(runDir, digest)).rejects.toThrow(new RegExp(`store entry ${storedFile(runDir, digest)} was altered`));
    await expect(get(runDir, '0'.repeat(64))).rejects.toThrow(/has no entry 000000000000/);
  });
});

describe('acquisition', () => {
  const parameters = (kind: RunParameters['source']['kind'], location: string) => ({ source: { kind, location } }) as RunParameters;

  test('a directory source is copied into the capture directory and pinned by its tree digest; a second acquisition checks it instead of copying', async () => {
    const runDir = await scratch();
    const frozen = await freezeSource(parameters('directory', sourceFixture), runDir);
    expect(frozen.identity).toBe(`directory:sha256:${await treeDigest(sourceFixture)}`);
    expect(await readFile(join(frozen.path, 'src', 'main.ts'), 'utf8')).toContain('read once, write once');
    expect(await freezeSource(parameters('directory', sourceFixture), runDir)).toEqual(frozen);
    await writeFile(join(frozen.path, 'README.md'), 'edited\n');
    await expect(freezeSource(parameters('directory', sourceFixture), runDir)).rejects.toThrow(/no longer matches its record/);
  });

  test('a bundle is copied with its SHA-256; a Git source is cloned and pinned to the resolved commit', async () => {
    const dir = await scratch();
    await writeFile(join(dir, 'toy.bundle'), 'bundle bytes\n');
    const bundle = await freezeSource(parameters('bundle', join(dir, 'toy.bundle')), join(dir, 'run-a'));
    expect(bundle.identity).toMatch(/^bundle:sha256:[0-9a-f]{64}$/);
    expect(await readFile(bundle.path, 'utf8')).toBe('bundle bytes\n');

    const { execa } = await import('execa');
    const repo = join(dir, 'repo');
    await mkdir(repo);
    await writeFile(join(repo, 'a.txt'), 'a\n');
    for (const args of [
      ['init', '--quiet'],
      ['add', '-A'],
      ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'one'],
    ])
      await execa('git', args, { cwd: repo });
    const head = (await execa('git', ['rev-parse', 'HEAD'], { cwd: repo })).stdout;
    const cloned = await freezeSource(parameters('git', repo), join(dir, 'run-b'));
    expect([cloned.identity, cloned.revision]).toEqual([`git:${repo}@${head}`, head]);
    expect(await readFile(join(cloned.path, 'a.txt'), 'utf8')).toBe('a\n');
  });

  test('a Git source that cannot be cloned is a SourceError naming the source (the workflow stops on it)', async () => {
    const dir = await scratch();
    await expect(freezeSource(parameters('git', join(dir, 'no-such-repo')), join(dir, 'run'))).rejects.toThrow(
      new RegExp(`^source ${join(dir, 'no-such-repo')} cannot be frozen: git clone`),
    );
  });
});
