import YAML from 'yaml';
for (const src of ['type: a\n\tdescription: b\n', '\ttype: a\n', 'type: a\ndescription: [b\n', 'a: 1\na: 2\n', 'a: !!binary aGVsbG8=\nb: 2026-01-01\n', 'x: *y\n']) {
  const lc = new YAML.LineCounter();
  const d = YAML.parseDocument(src, { lineCounter: lc, prettyErrors: true });
  console.log(JSON.stringify(src), d.errors.map(e => [e.code, e.message, e.linePos]), d.warnings.map(e=>e.message), d.errors.length ? null : d.toJS());
}
