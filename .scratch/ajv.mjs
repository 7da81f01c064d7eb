import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
const ajv = new Ajv2020.default({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictRequired: false, strictTuples: false });
addFormats.default(ajv, ['date']);
ajv.addKeyword({ keyword: 'severity', schemaType: 'string', metaSchema: { enum: ['warn', 'fail'] } });
const dir = '/work/shared/corpus/commonplace-kb/kb/types/';
const objs = new Map();
for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.schema.yaml'))) {
  const s = YAML.parse(fs.readFileSync(dir + f, 'utf8'));
  s.$id = pathToFileURL(dir + f).href;
  ajv.addSchema(s);
  objs.set(f, s);
}
const t0 = performance.now();
const v = ajv.getSchema(pathToFileURL(dir + 'note.schema.yaml').href);
console.log('compile ms', performance.now() - t0);
const model = { frontmatter: { type: 'kb/types/note.md', description: 'short', status: 'x' }, body: '', headings: [], links: [], body_dates: ['2026-02-30'] };
console.log(v(model));
const nb = objs.get('note-base.schema.yaml');
for (const e of v.errors) {
  console.log(e.keyword, e.instancePath, e.schemaPath, e.message, e.parentSchema === nb.properties.frontmatter.properties.description.allOf[0], JSON.stringify(e.parentSchema).slice(0,80));
}
