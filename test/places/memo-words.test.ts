/**
 * A run's memo is what the Web UI's Memo pane and `temporal workflow describe` show: its places read as
 * words (`checkout 32ae503a › …`, `the package's …`), never as `<checkout:…>` or `<package>` tokens. The
 * words keep the checkout ID and the path, so the CLI reads a memo back into the run's portable places:
 * a finished sweep started again from its recorded input runs on the same checkout.
 */
import { memoFromWords, memoInWords } from '../../src/place-words.js';
import { runCli } from '../helpers/cli.js';
import { checkoutIdOf, corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { env, address } = useDevServerWithCliWorker();

test("a sweep's memo names its places in words, and the sweep started again from that memo runs on the same checkout", async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(1);
  const args = ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--gates', 'frontmatter/*', '--notes', notes[0]!];
  const done = await runCli(args, { env: { TEMPORAL_ADDRESS: address() } });
  expect(done.exitCode).toBe(0);
  const runId = /sweep (GS-\S+) completed/.exec(String(done.stdout))?.[1];
  expect(runId).toBeDefined();
  const id = checkoutIdOf(checkout);

  const described = await env().client.workflow.getHandle(`gates/${runId}`).describe();
  const memo = JSON.stringify(described.memo);
  expect(memo).not.toMatch(/<(checkout|worktrees):[0-9a-f]{8}>|<package>|<state>/);
  expect(memo).toContain(`checkout ${id}`);
  expect((described.memo?.input as { checkout?: string } | undefined)?.checkout).toBe(`checkout ${id}`);

  // A closed sweep's --resume starts it again from the memo's input: its checkout read back as <checkout:ID>.
  const again = await runCli(['review', 'run', 'gates', '--resume', runId!, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() } });
  expect(again.stderr).toContain(`sweep ${runId} is completed; starting it again on its remaining stale pairs`);
  expect({ exitCode: again.exitCode, stdout: String(again.stdout) }).toEqual({ exitCode: 0, stdout: expect.stringMatching(/sweep GS-\S+ completed/) });
}, 180_000);

test.each([
  '<checkout:32ae503a>',
  '<checkout:32ae503a>/kb/notes/x.md',
  '<worktrees:32ae503a>/AAS-2026-12-03-quill-01',
  '<state>/probes/p-1',
  '<package>/defaults/worker-profiles.yaml',
  '<package>',
  '["<checkout:32ae503a>",["kb/notes/x.md"],"pair"]',
])('the place %s reads as words in a memo and back as the same token', (token) => {
  const memo = memoInWords({ input: { path: token, list: [token] } });
  expect(JSON.stringify(memo)).not.toMatch(/<(checkout|worktrees):|<state>|<package>/);
  expect(memoFromWords(memo)).toEqual({ input: { path: token, list: [token] } });
});
