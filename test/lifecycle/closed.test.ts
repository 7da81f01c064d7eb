import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const src = join(packageRoot(), 'src');
const sources = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(src, file));
const where = (pattern: RegExp) => sources.filter((file) => pattern.test(readFileSync(file, 'utf8'))).map((file) => relative(packageRoot(), file));

describe('the lifecycle is closed and its messages are defined once', () => {
  test('every query, Update and signal is defined in src/workflows/messages.ts and nowhere else', () => {
    expect(where(/\bdefine(Query|Update|Signal)\s*[<(]/)).toEqual(['src/workflows/messages.ts']);
  });

  test("no module assigns the lifecycle's state or records a status past its methods", () => {
    expect(where(/lifecycle\.(status|stage|stops|resumesAt|resumes)\s*=[^=]/)).toEqual([]);
    // The status is recorded by the lifecycle's view, which the lifecycle alone holds.
    expect(where(/\brecordStatus\(/)).toEqual(['src/workflows/lifecycle-view.ts']);
    expect(where(/\bnew RunView\(/)).toEqual(['src/workflows/lifecycle.ts']);
  });
});
