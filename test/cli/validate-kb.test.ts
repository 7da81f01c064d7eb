// `validate --kb KB <path>` run outside the KB: the path is the KB's, as in every other command that takes --kb.
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';

test('validate --kb KB kb/notes/x.md run outside the KB validates the note of KB', async () => {
  const checkout = await corpusCopy();
  const [note] = await someNotes(1);
  const result = await runCli(['validate', '--kb', checkout, note!, '--json'], { cwd: await scratch() });
  expect(result.stderr).toBe('');
  const report = JSON.parse(String(result.stdout)) as { root: string; files: { file: string }[] };
  expect(report.files.map((file) => file.file)).toEqual([note]);
});
