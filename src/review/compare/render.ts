/** A compare report as Markdown, and as one self-contained HTML page whose script draws the matrices from the report embedded as JSON. PURE MODULE. */
import { allAgreeWords, bandWords, readAgreement, tooFewWords } from './stats.js';
import { LABELS_ROUTE, MIN_KAPPA_PAIRS, verdicts, type Agreement, type CompareReport, type RouteCost } from './types.js';

const fixed = (value: number, digits = 2): string => value.toFixed(digits);

/** κ with its interval and band, as both renderings print it; perfect agreement and a small sample in words. */
export function kappaText(agreement: Agreement): string {
  const reading = readAgreement(agreement);
  if (reading.kind === 'no-pairs') return 'no pairs both sides answered';
  if (reading.kind === 'all-agree') return allAgreeWords(agreement.n, reading.verdict, reading.tooFew);
  const interval = agreement.kappaInterval ? ` [${fixed(agreement.kappaInterval[0])}, ${fixed(agreement.kappaInterval[1])}]` : ' [no interval]';
  const kappa = fixed(agreement.kappa ?? 0);
  if (reading.kind === 'too-few') return `${kappa}${interval} — ${tooFewWords(agreement.n)}`;
  return `${kappa}${interval} — ${bandWords(reading.band)}`;
}

/** The band's colour, or a neutral one for agreement, a small sample, no pairs. */
function readingClass(agreement: Agreement): string {
  const reading = readAgreement(agreement);
  if (reading.kind === 'band') return `band-${reading.band}`;
  return reading.kind === 'all-agree' ? 'band-agree' : reading.kind === 'too-few' ? 'band-small' : 'band-none';
}

/** How many criteria have fewer pairs than a κ needs, and the sample that would give each enough. */
export function sampleNote(report: CompareReport): string | undefined {
  const short = report.criteria.filter((criterion) => criterion.agreements.some((a) => a.n > 0 && a.n < MIN_KAPPA_PAIRS)).length;
  if (short === 0) return undefined;
  const count = report.criteria.length;
  return (
    `Per criterion, κ gets a band from ${MIN_KAPPA_PAIRS} pairs on; ${short} of the ${count} criteria in the sample have fewer, so their κ says too little. ` +
    `A sample with enough: \`--per-criterion-min ${MIN_KAPPA_PAIRS} --size ${MIN_KAPPA_PAIRS * count}\` (${MIN_KAPPA_PAIRS} pairs of each of the ${count} criteria, where the KB has them), or fewer criteria (\`--criteria\`).`
  );
}

export function referenceText(reference: string, report: CompareReport): string {
  if (reference === LABELS_ROUTE) return "the operator's labels";
  return reference === report.reference ? `${reference} (the reference route)` : reference;
}

const dollars = (cost: RouteCost): string => (cost.costUsdPerPair === null ? 'no price' : `$${cost.costUsdPerPair.toFixed(4)}`);
const tokens = (value: number): string => value.toFixed(0);
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function agreementRows(agreements: readonly Agreement[], report: CompareReport): string[] {
  return [
    '| route | against | n | raw agreement | κ [95 % interval] — band |',
    '| --- | --- | --- | --- | --- |',
    ...agreements.map((a) => `| ${cell(a.route)} | ${cell(referenceText(a.reference, report))} | ${a.n} | ${fixed(a.raw)} | ${kappaText(a)} |`),
  ];
}

function matrixRows(agreement: Agreement): string[] {
  return [
    `| ${cell(agreement.reference)} ↓ / ${cell(agreement.route)} → | ${verdicts.join(' | ')} |`,
    `| --- | ${verdicts.map(() => '---').join(' | ')} |`,
    ...verdicts.map((verdict, i) => `| ${verdict} | ${verdicts.map((_, j) => String(agreement.matrix[i]?.[j] ?? 0)).join(' | ')} |`),
  ];
}

function flipLines(agreement: Agreement): string[] {
  return agreement.flips.flatMap((flip) => [
    `- \`${flip.note}\`: ${agreement.reference} says ${flip.reference}, ${agreement.route} says ${flip.route}`,
    `  - ${agreement.reference}: ${flip.referenceReasons.length > 0 ? flip.referenceReasons.join('; ') : '(no reasons given)'}`,
    `  - ${agreement.route}: ${flip.routeReasons.length > 0 ? flip.routeReasons.join('; ') : '(no reasons given)'}`,
  ]);
}

export function renderMarkdown(report: CompareReport): string {
  const lines = [
    `# Compare run ${report.runId}`,
    '',
    `Sample: ${report.sample.size} pairs, seed ${report.sample.seed}. Routes: ${report.routes.join(', ')}.`,
    `Reference: ${report.reference}; every other route is scored against it${report.overall.some((a) => a.reference === LABELS_ROUTE) ? ", and every route against the operator's labels" : ''}.`,
    `Bands: κ ≥ 0.7 may gate on its own; 0.4 ≤ κ < 0.7 monitoring only; κ < 0.4 not usable. κ is chance-corrected: a route that always gives one verdict has κ 0 whatever its raw agreement.`,
    ...(sampleNote(report) !== undefined ? ['', sampleNote(report)!] : []),
    '',
    '## Overall',
    '',
    ...agreementRows(report.overall, report),
    '',
    '## Cost per pair',
    '',
    '| route | pairs | dollars per pair | input tokens | output tokens | cache read | cache write |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...report.costs.map(
      (c) =>
        `| ${cell(c.route)} | ${c.pairs} | ${dollars(c)} | ${tokens(c.tokensPerPair.input)} | ${tokens(c.tokensPerPair.output)} | ${tokens(c.tokensPerPair.cacheRead)} | ${tokens(c.tokensPerPair.cacheWrite)} |`,
    ),
  ];
  for (const criterion of report.criteria) {
    lines.push('', `## ${criterion.criterion} (${criterion.kind})`, '', ...agreementRows(criterion.agreements, report));
    for (const agreement of criterion.agreements) {
      lines.push('', `### ${agreement.route} against ${referenceText(agreement.reference, report)}`, '', ...matrixRows(agreement));
      if (agreement.flips.length > 0) lines.push('', `Pass↔fail flips (${agreement.flips.length}):`, '', ...flipLines(agreement));
    }
  }
  return `${lines.join('\n')}\n`;
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function agreementTable(agreements: readonly Agreement[], report: CompareReport): string {
  const rows = agreements.map(
    (a) =>
      `<tr><td>${escapeHtml(a.route)}</td><td>${escapeHtml(referenceText(a.reference, report))}</td><td>${a.n}</td><td>${fixed(a.raw)}</td><td class="${readingClass(a)}">${escapeHtml(kappaText(a))}</td></tr>`,
  );
  return `<table><thead><tr><th>route</th><th>against</th><th>n</th><th>raw agreement</th><th>κ [95 % interval] — band</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function flipList(agreements: readonly Agreement[]): string {
  const items = agreements.flatMap((a) =>
    a.flips.map(
      (flip) =>
        `<li><code>${escapeHtml(flip.note)}</code>: ${escapeHtml(a.reference)} says <b>${flip.reference}</b>, ${escapeHtml(a.route)} says <b>${flip.route}</b><ul><li>${escapeHtml(a.reference)}: ${escapeHtml(flip.referenceReasons.join('; ') || '(no reasons given)')}</li><li>${escapeHtml(a.route)}: ${escapeHtml(flip.routeReasons.join('; ') || '(no reasons given)')}</li></ul></li>`,
    ),
  );
  return items.length === 0 ? '' : `<h3>Pass↔fail flips</h3><ul>${items.join('')}</ul>`;
}

/** Draws each criterion's matrices into its `.matrices` element; runs in the browser, from the embedded report. */
const DRAW_SCRIPT = `
(function () {
  var report = JSON.parse(document.getElementById('compare-report').textContent);
  var verdicts = ${JSON.stringify(verdicts)};
  var holders = document.querySelectorAll('.matrices');
  var drawn = 0;
  report.criteria.forEach(function (criterion, index) {
    var holder = holders[index];
    criterion.agreements.forEach(function (agreement) {
      var max = 1;
      agreement.matrix.forEach(function (row) { row.forEach(function (count) { if (count > max) max = count; }); });
      var figure = document.createElement('figure');
      var table = document.createElement('table');
      table.className = 'heatmap';
      table.setAttribute('data-criterion', criterion.criterion);
      table.setAttribute('data-route', agreement.route);
      table.setAttribute('data-reference', agreement.reference);
      var head = table.insertRow();
      var corner = document.createElement('th');
      corner.textContent = agreement.reference + ' \\u2193 / ' + agreement.route + ' \\u2192';
      head.appendChild(corner);
      verdicts.forEach(function (verdict) { var th = document.createElement('th'); th.textContent = verdict; head.appendChild(th); });
      agreement.matrix.forEach(function (row, i) {
        var tr = table.insertRow();
        var th = document.createElement('th');
        th.textContent = verdicts[i];
        tr.appendChild(th);
        row.forEach(function (count, j) {
          var td = tr.insertCell();
          td.textContent = String(count);
          td.setAttribute('data-cell', verdicts[i] + '/' + verdicts[j]);
          var alpha = count / max;
          td.style.background = (i === j ? 'rgba(26, 127, 55, ' : 'rgba(207, 34, 46, ') + (0.08 + 0.8 * alpha).toFixed(3) + ')';
          if (alpha > 0.6) td.style.color = '#fff';
        });
      });
      var caption = document.createElement('figcaption');
      caption.textContent = agreement.route + ' against ' + agreement.reference + ' (n ' + agreement.n + ')';
      figure.appendChild(caption);
      figure.appendChild(table);
      holder.appendChild(figure);
      drawn += 1;
    });
  });
  document.body.setAttribute('data-matrices-drawn', String(drawn));
})();
`;

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1f2328; max-width: 72rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
table.heatmap td { text-align: center; min-width: 3rem; font-variant-numeric: tabular-nums; }
.matrices { display: flex; flex-wrap: wrap; gap: 1.5rem; }
figure { margin: 0; }
figcaption { font-size: 12px; color: #57606a; }
.band-gate { color: #1a7f37; } .band-monitor { color: #9a6700; } .band-unusable { color: #cf222e; }
.band-agree { color: #0969da; } .band-small, .band-none { color: #57606a; }
`;

export function renderHtml(report: CompareReport): string {
  const embedded = JSON.stringify(report)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  const costs = report.costs
    .map(
      (c) =>
        `<tr><td>${escapeHtml(c.route)}</td><td>${c.pairs}</td><td>${dollars(c)}</td><td>${tokens(c.tokensPerPair.input)}</td><td>${tokens(c.tokensPerPair.output)}</td><td>${tokens(c.tokensPerPair.cacheRead)}</td><td>${tokens(c.tokensPerPair.cacheWrite)}</td></tr>`,
    )
    .join('');
  const criteria = report.criteria
    .map(
      (c) =>
        `<section><h2>${escapeHtml(c.criterion)} <small>(${escapeHtml(c.kind)})</small></h2>${agreementTable(c.agreements, report)}<div class="matrices"></div>${flipList(c.agreements)}</section>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Compare run ${escapeHtml(report.runId)}</title><style>${STYLE}</style></head>
<body>
<h1>Compare run ${escapeHtml(report.runId)}</h1>
<p>Sample: ${report.sample.size} pairs, seed ${report.sample.seed}. Routes: ${escapeHtml(report.routes.join(', '))}. Reference: ${escapeHtml(report.reference)}.</p>
<p>Bands: κ ≥ 0.7 may gate on its own; 0.4 ≤ κ &lt; 0.7 monitoring only; κ &lt; 0.4 not usable. Each matrix's rows are the reference's verdicts, its columns the route's; the diagonal (agreement) is green, the rest red, darker for more pairs.</p>
${sampleNote(report) !== undefined ? `<p class="sample-note">${escapeHtml(sampleNote(report)!)}</p>\n` : ''}<h2>Overall</h2>
${agreementTable(report.overall, report)}
<h2>Cost per pair</h2>
<table><thead><tr><th>route</th><th>pairs</th><th>dollars per pair</th><th>input tokens</th><th>output tokens</th><th>cache read</th><th>cache write</th></tr></thead><tbody>${costs}</tbody></table>
${criteria}
<script type="application/json" id="compare-report">${embedded}</script>
<script>${DRAW_SCRIPT}</script>
</body></html>
`;
}
