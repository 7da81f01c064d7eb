/**
 * What a person reads names places by paths or words, never by the tokens workflow data carries
 * (`<checkout:ID>`, `<worktrees:ID>`, `<state>`, `<package>`): the CLI's text shows this host's paths
 * (or words where it has none), and the Web UI's summaries and details, which it renders as Markdown,
 * show words with Markdown escaped, so nothing vanishes or turns into a link.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { inWords } from '../../src/place-words.js';
import { markdownText } from '../../src/runs/run-details.js';
import { hostPaths, knowCheckout, rendered } from '../../src/client/shared/render-paths.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { checkoutIdOf, corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { env, address } = useDevServerWithCliWorker();

/** A place token anywhere in a text. */
const TOKEN = /<(?:checkout:[0-9a-f]{8}|worktrees:[0-9a-f]{8}|state|package)>/;

/** A `<` Markdown would read as the start of HTML or an autolink: one not escaped with a backslash. */
const UNESCAPED_ANGLE = /(^|[^\\])</m;

describe('the renderers', () => {
  test('CLI text: a checkout this command named prints at its paths here, the package at its root here, the rest as words', () => {
    knowCheckout('0a1b2c3d', { root: '/home/me/notes', worktrees: '/home/me/notes.worktrees' });
    expect(rendered('run directory <checkout:0a1b2c3d>/kb/reports/state/review/runs/r1, worktree <worktrees:0a1b2c3d>/AAS-1')).toBe(
      'run directory /home/me/notes/kb/reports/state/review/runs/r1, worktree /home/me/notes.worktrees/AAS-1',
    );
    expect(rendered('cannot read <package>/defaults/worker-profiles.yaml: no such profile')).toBe(
      `cannot read ${packageRoot()}/defaults/worker-profiles.yaml: no such profile`,
    );
    expect(rendered('launch directory <state>/probes/probe-1')).toBe("launch directory the worker's state directory › probes/probe-1");
    expect(rendered('(<checkout:ffff0000>/kb/notes/x.md).')).toBe('(checkout ffff0000 › kb/notes/x.md).');
    expect(rendered('sweeps <checkout:ffff0000>')).toBe('sweeps checkout ffff0000');
    // JSON keeps what it always printed: a named checkout's paths, every other token as written.
    expect(hostPaths('<checkout:0a1b2c3d>/kb and <checkout:ffff0000>/kb and <state>/x')).toBe('/home/me/notes/kb and <checkout:ffff0000>/kb and <state>/x');
  });

  test('Web UI text: tokens as words, Markdown escaped', () => {
    expect(inWords('source directory <package>/examples/systems/quill')).toBe("source directory the package's examples/systems/quill");
    expect(inWords('<worktrees:0a1b2c3d>/AAS-1/kb')).toBe('the run worktrees of checkout 0a1b2c3d › AAS-1/kb');
    expect(markdownText('<checkout:0a1b2c3d>/kb/notes/a_b.md × kb/notes/*.md <x> [y](z) a|b')).toBe(
      'checkout 0a1b2c3d › kb/notes/a\\_b.md × kb/notes/\\*.md \\<x\\> \\[y\\](z) a\\|b',
    );
  });
});

describe('what a person reads of real runs', () => {
  test("a probe of a KB's profiles: its launch directory in words on stdout, its summary and details in the Web UI without a token or an unescaped <", async () => {
    const checkout = await corpusCopy();
    const { scenario } = await fakeScenario(await scratch(), [{ attempts: [{ writeDeclared: 'probe ok\n' }] }]);
    const profiles = join(packageRoot(), 'defaults', 'worker-profiles.yaml');
    const probe = await runCli(['probe', '--profile', 'fake', '--kb', checkout, '--profiles', profiles, '--scenario', scenario], {
      env: { TEMPORAL_ADDRESS: address() },
    });
    expect(probe.exitCode).toBe(0);
    expect(probe.stdout).toMatch(/^ {2}launch directory the worker's state directory › probes\/\S+$/m);
    expect(`${probe.stdout}${probe.stderr}`).not.toMatch(TOKEN);

    const workflowId = /^probe (probe\/fake\/\S+):/m.exec(String(probe.stdout))?.[1];
    const described = await env().client.workflow.getHandle(workflowId!).describe();
    const [summary, details] = [await described.staticSummary(), await described.staticDetails()];
    for (const text of [summary, details]) {
      expect(text).not.toMatch(TOKEN);
      expect(text).not.toMatch(UNESCAPED_ANGLE);
    }
    expect(details).toContain(`| checkout | checkout ${checkoutIdOf(checkout)} |`);
    // The package's file is named from the package's root, as words: nothing of its path vanishes.
    expect(details).toContain("| profiles file | the package's defaults/worker-profiles.yaml |");
  });

  test("an error that names the shipped profiles file names it at this host's package root, not as `<package>/…`", async () => {
    const probe = await runCli(['probe', '--profile', 'nosuch'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(probe.exitCode).toBe(1);
    const line = String(probe.stderr).trim().split('\n').at(-1);
    expect(line).toMatch(/^commonplace: .*unknown worker profile "nosuch"/);
    expect(line).toContain(join(packageRoot(), 'defaults', 'worker-profiles.yaml'));
    expect(line).not.toMatch(TOKEN);
  });

  test("a sweep's summary and details in the Web UI: its checkout in words and its globs escaped, so nothing vanishes", async () => {
    const checkout = await corpusCopy();
    const [note] = await someNotes(1);
    const { scenario } = await fakeScenario(await scratch(), [{ attempts: [{ review: 'pass' }] }]);
    const started = await runCli(
      ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', 'frontmatter/*', '--notes', note!, '--detach'],
      { env: { TEMPORAL_ADDRESS: address() } },
    );
    expect(started.exitCode).toBe(0);
    const workflowId = /started (gates\/GS-\S+);/.exec(String(started.stderr))?.[1];
    const handle = env().client.workflow.getHandle(workflowId!);
    const described = await handle.describe();
    const [summary, details] = [await described.staticSummary(), await described.staticDetails()];
    for (const text of [summary, details]) {
      expect(text).not.toMatch(TOKEN);
      expect(text).not.toMatch(UNESCAPED_ANGLE);
    }
    expect(summary).toContain('× frontmatter/\\*');
    expect(details).toContain(`| checkout | checkout ${checkoutIdOf(checkout)} |`);
    expect(details).toContain('| gates | frontmatter/\\* |');
    await handle.result();
  });

  test('`review schedule list` shows the checkout a schedule sweeps at its path inside that checkout, and by its ID elsewhere', async () => {
    const checkout = await corpusCopy();
    await execa('git', ['init', '--quiet', checkout]);
    const name = `render-${Date.now().toString(36)}`;
    const created = await runCli(['review', 'schedule', 'create', name, '--kb', checkout, '--every', '24h', '--profile', 'fake', '--paused'], {
      env: { TEMPORAL_ADDRESS: address() },
    });
    expect(created.exitCode).toBe(0);
    try {
      const list = (cwd: string) => execa('node', [cliPath, 'review', 'schedule', 'list'], { cwd, reject: false, env: { TEMPORAL_ADDRESS: address() } });
      const inside = await list(join(checkout, 'kb'));
      expect(inside.exitCode).toBe(0);
      expect(inside.stdout).toMatch(new RegExp(`^${name}: every 24h, paused, ${checkout.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, `, 'm'));
      const outside = await list(await scratch());
      expect(outside.exitCode).toBe(0);
      expect(outside.stdout).toMatch(new RegExp(`^${name}: every 24h, paused, checkout ${checkoutIdOf(checkout)}, `, 'm'));
      expect(`${inside.stdout}${outside.stdout}`).not.toMatch(TOKEN);
    } finally {
      await runCli(['review', 'schedule', 'delete', name], { env: { TEMPORAL_ADDRESS: address() } });
    }
  });
});
