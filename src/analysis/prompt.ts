/** The instruction, `name = value` lines, then the plan's prompt section; a paragraph marked `[<name>]` is kept only when the prompt has that line. PURE MODULE. */

export interface PromptLine {
  readonly name: string;
  readonly value: string;
}

/** Line names, placeholders and markers share one grammar: lowercase words joined by hyphens. */
export const LINE_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const PLACEHOLDER = /\{([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\}/g;
const MARKERS = /^((?:\[[a-z][a-z0-9]*(?:-[a-z0-9]+)*\])+)[ \t]*\n?/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export interface SectionParagraph {
  /** Empty for an unconditional paragraph. */
  readonly markers: readonly string[];
  /** Markers removed. */
  readonly text: string;
  /** 1-based, in the section. */
  readonly line: number;
}

export interface Placeholder {
  readonly name: string;
  readonly line: number;
}

export class PromptError extends Error {
  override name = 'PromptError';
  constructor(
    message: string,
    readonly missing: readonly Placeholder[],
  ) {
    super(message);
  }
}

/** At blank lines, never inside fenced code. */
export function parseSection(section: string): SectionParagraph[] {
  const lines = section.replace(/\r\n/g, '\n').split('\n');
  const paragraphs: SectionParagraph[] = [];
  let current: string[] = [];
  let start = 0;
  let fence: string | undefined;
  const flush = () => {
    if (current.length === 0) return;
    const raw = current.join('\n');
    const marked = MARKERS.exec(raw);
    const markers = marked ? [...(marked[1] ?? '').matchAll(/\[([^\]]+)\]/g)].map((match) => match[1] ?? '') : [];
    paragraphs.push({ markers, text: marked ? raw.slice(marked[0].length) : raw, line: start + 1 });
    current = [];
  };
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else if (line.trim() === '') {
      flush();
      return;
    }
    if (current.length === 0) start = index;
    current.push(line);
  });
  flush();
  return paragraphs;
}

function placeholdersOf(paragraph: SectionParagraph): Placeholder[] {
  const found: Placeholder[] = [];
  paragraph.text.split('\n').forEach((line, offset) => {
    for (const match of line.matchAll(PLACEHOLDER)) found.push({ name: match[1] ?? '', line: paragraph.line + offset });
  });
  return found;
}

export function sectionNames(section: string): (Placeholder & { kind: 'placeholder' | 'marker' })[] {
  const names: (Placeholder & { kind: 'placeholder' | 'marker' })[] = [];
  for (const paragraph of parseSection(section)) {
    for (const marker of paragraph.markers) names.push({ name: marker, line: paragraph.line, kind: 'marker' });
    for (const placeholder of placeholdersOf(paragraph)) names.push({ ...placeholder, kind: 'placeholder' });
  }
  return names;
}

export type RenderResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly missing: readonly Placeholder[] };

export function renderSection(section: string, lines: readonly PromptLine[]): RenderResult {
  const values = new Map<string, string[]>();
  for (const line of lines) values.set(line.name, [...(values.get(line.name) ?? []), line.value]);
  const kept: string[] = [];
  const missing: Placeholder[] = [];
  for (const paragraph of parseSection(section)) {
    if (!paragraph.markers.every((marker) => values.has(marker))) continue;
    for (const placeholder of placeholdersOf(paragraph)) if (!values.has(placeholder.name)) missing.push(placeholder);
    kept.push(paragraph.text.replace(PLACEHOLDER, (whole, name: string) => values.get(name)?.join(', ') ?? whole));
  }
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, text: kept.join('\n\n') };
}

/** The `name = value` block; a value never spans lines. */
export function formatLines(lines: readonly PromptLine[]): string {
  return lines.map((line) => `${line.name} = ${line.value.replace(/\s*\n\s*/g, ' ')}`).join('\n');
}

/** A placeholder without its line is a PromptError (the plan loader rules it out beforehand). */
export function composePrompt(parts: { readonly instruction: string; readonly lines: readonly PromptLine[]; readonly section: string }): string {
  const rendered = renderSection(parts.section, parts.lines);
  if (!rendered.ok) {
    const names = [...new Set(rendered.missing.map((placeholder) => `{${placeholder.name}}`))].join(', ');
    throw new PromptError(`the prompt section refers to ${names}, which this prompt has no line for`, rendered.missing);
  }
  const blocks = [parts.instruction.trim(), formatLines(parts.lines), rendered.text.trim()].filter((block) => block !== '');
  return `${blocks.join('\n\n')}\n`;
}
