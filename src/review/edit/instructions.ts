/** Judgment lives in these files, not in prompts: a KB overrides each at its KB path, else the default below (the brief records which, by digest). */
import type { PassName } from './plan-types.js';

export type InstructionName = 'edit-note' | 'assess-revision' | `revise-${PassName}`;

export function instructionPath(name: InstructionName): string {
  if (name === 'edit-note') return 'kb/instructions/edit-note.md';
  if (name === 'assess-revision') return 'kb/instructions/revise/assess.md';
  return `kb/instructions/revise/${name.slice('revise-'.length)}.md`;
}

const EDIT_NOTE = `# Edit a note after its review

You are given a note, the review of it by each review gate that applies to it (each ends in its
result: pass, warn or fail), and a critique of its central commitment.

Decide whether the note should change. Edit only to resolve what a warn or fail review, or a
critique finding that lands, actually shows; do not rewrite what passed. Keep the note's claim,
its frontmatter keys and its type; keep its links unless a review shows a link is wrong, and add no
link to a file that does not exist. Keep the note about its present length: an edit that resolves a
finding rarely needs to grow or shrink the note by half.

If nothing a review or the critique shows is worth changing, decide \`no-edit\` and leave the edited
text empty. Otherwise write the whole edited note, frontmatter included.

Explain the decision in a few sentences: which findings the edit resolves, and which it leaves and why.
`;

const ASSESS = `# Assess a note for revision

Read the note and choose the simplification passes it needs, in the order they should run. The
passes are:

- \`tighten\` — cut restatement, hedging that carries nothing, and sentences that repeat the title.
- \`restructure\` — reorder or merge sections so the argument reads in one direction.
- \`plain-wording\` — replace coined or inflated wording with plain words, span by span.
- \`abstractions\` — replace an abstraction the note does not earn with the concrete case it stands for.

Choose only passes the note needs; a note that needs none needs no revision run, so choose the one
that helps most. Write the plan as YAML:

    passes:
      - pass: plain-wording
        reason: why this pass, in one sentence
        focus: where in the note, if it is one part

Each pass at most once.
`;

const TIGHTEN = `# Tighten a note

Cut what carries nothing: restatement of the title or of an earlier sentence, hedges that do not
change what is claimed, connective filler, and sentences that announce what the next one says.
Keep every claim, example, qualifier that changes a claim's scope, heading and link. Keep the
frontmatter keys and their values unless a description restates the title word for word.

Write the whole tightened note, frontmatter included.
`;

const RESTRUCTURE = `# Restructure a note

Reorder or merge sections so the argument reads in one direction: the claim, what it rests on,
what follows from it, its limits. Move text; do not rewrite it beyond the joins a move needs. Keep
every claim, example, link and the frontmatter.

Write the whole restructured note, frontmatter included.
`;

const PLAIN_WORDING = `# Plain wording: select spans

Find spans whose wording is coined, inflated or jargon where a plain word says the same: a span of
a few words, quoted exactly as it stands in the note's body (enough of it to occur only once), and
the plain replacement. Do not select a defined term the note relies on, a quotation, or a title.

Write one selection per line:

    - [s1] "exact span from the body" -> "plain replacement" — why, in a few words

Ids are s1, s2, …; the span and replacement are JSON strings (double quotes, backslash escapes).
Select nothing rather than something doubtful; an empty list is a valid answer.
`;

const ABSTRACTIONS = `# Abstractions: select spans

Find abstractions the note does not earn: a general term standing where the note means one
concrete case, mechanism or example. Quote the span exactly as it stands in the body (enough of it
to occur only once) and give the concrete wording that replaces it, drawn from the note itself.

Write one selection per line:

    - [s1] "exact span from the body" -> "concrete replacement" — why, in a few words

Ids are s1, s2, …; the span and replacement are JSON strings (double quotes, backslash escapes).
Select nothing rather than something doubtful; an empty list is a valid answer.
`;

export const DEFAULT_INSTRUCTIONS: Record<InstructionName, string> = {
  'edit-note': EDIT_NOTE,
  'assess-revision': ASSESS,
  'revise-tighten': TIGHTEN,
  'revise-restructure': RESTRUCTURE,
  'revise-plain-wording': PLAIN_WORDING,
  'revise-abstractions': ABSTRACTIONS,
};
