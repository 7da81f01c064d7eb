import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { runsRunsOf } from '../../src/release.js';

const root = packageRoot();
const histories = join(root, 'test', 'histories');

interface Row {
  patch: string;
  callSites: { file: string; count: number }[];
  marker: number;
  older: string[];
  recordedBy: string;
  status: string;
}

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
const ticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The table between the patch-table markers of docs/upgrading.md. */
function patchTable(): Row[] {
  const doc = readFileSync(join(root, 'docs', 'upgrading.md'), 'utf8');
  const table = /<!-- patch-table -->\n([\s\S]*?)<!-- \/patch-table -->/.exec(doc)?.[1] ?? '';
  return table
    .trim()
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('|'))
    .map((line) => {
      const [patch, sites, marker, older, recordedBy, status] = cells(line);
      return {
        patch: ticked(patch!)[0]!,
        callSites: sites!.split(',').map((site) => ({ file: ticked(site)[0]!, count: Number(/\((\d+)\)/.exec(site)?.[1] ?? 1) })),
        marker: Number(marker),
        older: ticked(older!),
        recordedBy: recordedBy!,
        status: status!,
      };
    });
}

/** Each workflow module, by path from the package root, with its text. */
function workflowModules(): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) found.push({ file: path, text: readFileSync(join(root, path), 'utf8') });
    }
  };
  visit(join('src', 'workflows'));
  return found;
}

/** Each patch the workflow code defines: its ID and the constant naming it. */
const definedPatches = (): { id: string; constant: string }[] =>
  workflowModules().flatMap(({ text }) => [...text.matchAll(/export const (\w+_PATCH) = '([^']+)'/g)].map((match) => ({ constant: match[1]!, id: match[2]! })));

/** The patch IDs whose markers a history holds. */
function markersOf(file: string): Set<string> {
  const history = JSON.parse(readFileSync(join(histories, file), 'utf8')) as {
    events: { markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads?: { data?: string }[] }> } }[];
  };
  const ids = new Set<string>();
  for (const event of history.events) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    if (data) ids.add((JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id);
  }
  return ids;
}

const prePlaces = join(histories, 'pre-places');
const historyFiles = [
  ...readdirSync(histories).filter((file) => file.endsWith('.json')),
  ...(existsSync(prePlaces)
    ? readdirSync(prePlaces)
        .filter((file) => file.endsWith('.json'))
        .map((file) => `pre-places/${file}`)
    : []),
];
const rows = patchTable();
const defined = definedPatches();
const eachRow: [string, Row][] = rows.map((row) => [row.patch, row]);

test('the patch table of docs/upgrading.md lists every patch the workflow code defines, and no other', () => {
  expect(rows.map((row) => row.patch).sort()).toEqual(defined.map((patch) => patch.id).sort());
});

// A table with no patch is held to workflow code that calls no patch API at all.
if (rows.length === 0) {
  test('the patch table is empty, and no workflow module calls patched() or deprecatePatch()', () => {
    expect(
      workflowModules()
        .filter(({ text }) => /\b(patched|deprecatePatch)\(/.test(text))
        .map(({ file }) => file),
    ).toEqual([]);
  });
}

/** The tests of each patch, over the table's rows: none when it is empty (Jest refuses test.each of no rows). */
const eachPatch = rows.length > 0 ? test.each(eachRow) : () => undefined;

eachPatch('%s is called where the table says, as its status says (patched while active, deprecatePatch once deprecated)', (_patch: string, row: Row) => {
  const constant = defined.find((patch) => patch.id === row.patch)!.constant;
  const call = row.status === 'deprecated' ? 'deprecatePatch' : 'patched';
  expect(['active', 'deprecated']).toContain(row.status);
  for (const site of row.callSites) {
    const text = readFileSync(join(root, site.file), 'utf8');
    expect([site.file, text.split(`${call}(${constant})`).length - 1]).toEqual([site.file, site.count]);
  }
});

eachPatch(
  '%s: as many recorded histories hold its marker as the table says, and each it lists for the older branch exists without the marker',
  (_patch: string, row: Row) => {
    expect(historyFiles.filter((file) => markersOf(file).has(row.patch)).length).toBe(row.marker);
    for (const file of row.older) {
      expect([file, existsSync(join(histories, file))]).toEqual([file, true]);
      expect([file, markersOf(file).has(row.patch)]).toEqual([file, false]);
    }
  },
);

/** Each history's release, from recorded-by.map beside it. */
const releaseOf = (file: string): string | undefined => {
  const folder = file.includes('/') ? join(histories, file.slice(0, file.lastIndexOf('/'))) : histories;
  const map = JSON.parse(readFileSync(join(folder, 'recorded-by.map'), 'utf8')) as Record<string, string>;
  return map[file.slice(file.lastIndexOf('/') + 1)];
};

test('every recorded history names the release that recorded it', () => {
  expect(historyFiles.filter((file) => releaseOf(file) === undefined)).toEqual([]);
});

eachPatch(
  '%s: the releases the table says recorded its older branch are those of the histories it lists, each a release this code runs (a patch carries a change made after a release, under its runs)',
  (_patch: string, row: Row) => {
    const releases = [...new Set(row.older.map(releaseOf))].sort();
    expect(row.recordedBy).toBe(releases.join(', ') || '—');
    expect(releases.filter((release) => release === undefined || !runsRunsOf(release))).toEqual([]);
  },
);
