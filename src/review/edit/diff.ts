/** A unified diff (Myers) for `artifact/final.diff`, what the operator reads before approving a changed note. Pure. */

type Op = { kind: 'equal' | 'delete' | 'insert'; line: string };

/** Past this many lines in all, the diff is one hunk replacing the whole text (no quadratic search). */
const MAX_LINES = 20_000;

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/** The shortest edit script from a to b (Myers 1986, with a trace for the path back). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  if (max > MAX_LINES) return [...a.map((line): Op => ({ kind: 'delete', line })), ...b.map((line): Op => ({ kind: 'insert', line }))];
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d -= 1) {
    const row = trace[d]!;
    const k = x - y;
    const previousK = k === -d || (k !== d && row[offset + k - 1]! < row[offset + k + 1]!) ? k + 1 : k - 1;
    const previousX = row[offset + previousK]!;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push({ kind: 'equal', line: a[x - 1]! });
      x -= 1;
      y -= 1;
    }
    if (d > 0) {
      if (x === previousX) ops.push({ kind: 'insert', line: b[y - 1]! });
      else ops.push({ kind: 'delete', line: a[x - 1]! });
    }
    x = previousX;
    y = previousY;
  }
  return ops.reverse();
}

/** The empty string when the texts are equal. */
export function unifiedDiff(before: string, after: string, path: string, context = 3): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  // A missing final newline is a difference of the last line; mark it the way diff(1) does.
  const aLines = a.lines.map((line, index) => (index === a.lines.length - 1 && !a.finalNewline ? `${line}\n\\ No newline at end of file` : line));
  const bLines = b.lines.map((line, index) => (index === b.lines.length - 1 && !b.finalNewline ? `${line}\n\\ No newline at end of file` : line));
  const ops = editScript(aLines, bLines);
  const out: string[] = [`--- a/${path}`, `+++ b/${path}`];
  let index = 0;
  let aLine = 0;
  let bLine = 0;
  while (index < ops.length) {
    // Skip to the next change, keeping line counts.
    while (index < ops.length && ops[index]!.kind === 'equal') {
      index += 1;
      aLine += 1;
      bLine += 1;
    }
    if (index >= ops.length) break;
    const lead = Math.min(context, index, aLine);
    let start = index - lead;
    let end = index;
    // Extend the hunk while the next change is within 2 × context equal lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== 'equal') end += 1;
      let equal = 0;
      while (end + equal < ops.length && ops[end + equal]!.kind === 'equal') equal += 1;
      if (end + equal >= ops.length || equal > 2 * context) {
        end += Math.min(equal, context);
        break;
      }
      end += equal;
    }
    const aStart = aLine - lead;
    const bStart = bLine - lead;
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((op) => op.kind !== 'insert').length;
    const bCount = hunk.filter((op) => op.kind !== 'delete').length;
    const range = (from: number, count: number) => `${count === 0 ? from : from + 1}${count === 1 ? '' : `,${count}`}`;
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const op of hunk) out.push(`${op.kind === 'equal' ? ' ' : op.kind === 'delete' ? '-' : '+'}${op.line}`);
    aLine = aStart + aCount;
    bLine = bStart + bCount;
    index = end;
    start = end;
  }
  return `${out.join('\n')}\n`;
}
