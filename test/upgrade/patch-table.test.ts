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

/** Each patch the workflow code defines: its ID, the constant naming it and the file defining it. */
function definedPatches(): { id: string; constant: string }[] {
  const found: { id: string; constant: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts'))
        for (const match of readFileSync(path, 'utf8').matchAll(/export const (\w+_PATCH) = '([^']+)'/g)) found.push({ constant: match[1]!, id: match[2]! });
    }
  };
  visit(join(root, 'src', 'workflows'));
  return found;
}

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
/** The table's rows for test.each (Jest refuses an empty table: no patch is one placeholder row that checks nothing). */
const eachRow: [string, Row | undefined][] = rows.length > 0 ? rows.map((row) => [row.patch, row]) : [['(no patch)', undefined]];

test('the patch table of docs/upgrading.md lists every patch the workflow code defines, and no other', () => {
  expect(rows.map((row) => row.patch).sort()).toEqual(defined.map((patch) => patch.id).sort());
});

test.each(eachRow)('%s is called where the table says, as its status says (patched while active, deprecatePatch once deprecated)', (_patch, row) => {
  if (row === undefined) return;
  const constant = defined.find((patch) => patch.id === row.patch)!.constant;
  const call = row.status === 'deprecated' ? 'deprecatePatch' : 'patched';
  expect(['active', 'deprecated']).toContain(row.status);
  for (const site of row.callSites) {
    const text = readFileSync(join(root, site.file), 'utf8');
    expect([site.file, text.split(`${call}(${constant})`).length - 1]).toEqual([site.file, site.count]);
  }
});

test.each(eachRow)(
  '%s: as many recorded histories hold its marker as the table says, and each it lists for the older branch exists without the marker',
  (_patch, row) => {
    if (row === undefined) return;
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

test.each(eachRow)(
  '%s: the releases the table says recorded its older branch are those of the histories it lists, each a release this code runs (a patch carries a change made after a tagged release, under its runs)',
  (_patch, row) => {
    if (row === undefined) return;
    const releases = [...new Set(row.older.map(releaseOf))].sort();
    expect(row.recordedBy).toBe(releases.join(', ') || '—');
    expect(releases.filter((release) => release === undefined || !runsRunsOf(release))).toEqual([]);
  },
);
