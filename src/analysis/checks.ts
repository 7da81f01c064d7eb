/** Code a plan may name per role: a check refuses a candidate with findings; feedback adds to what a refused author is handed. PURE MODULE. */
import { declaredRecords, noteBody, proseLines } from './records.js';

export interface CheckFinding {
  readonly rule: string;
  readonly message: string;
  /** 1-based. */
  readonly line?: number;
}

export interface CheckContext {
  readonly role: string;
  readonly text: string;
  /** The role's accepted version before this candidate. */
  readonly incumbent: string | undefined;
  /** The layout's record-ID pattern. */
  readonly recordId: string | undefined;
}

export type DeclaredCheck = (context: CheckContext) => CheckFinding[];

function bodyOffset(text: string): number {
  const normal = text.replace(/\r\n/g, '\n');
  return normal.split('\n').length - noteBody(normal).split('\n').length;
}

export const DECLARED_CHECKS: Readonly<Record<string, DeclaredCheck>> = {
  /** The member declares at least one record, so others have something to cite. */
  'records-declared': ({ text, recordId }) => {
    if (recordId === undefined) return [{ rule: 'records-declared', message: 'the layout declares no `records.id` pattern, so no record can be declared' }];
    return declaredRecords(noteBody(text), recordId).length > 0
      ? []
      : [{ rule: 'records-declared', message: `declares no record: start a heading or a table row with a record ID (pattern ${recordId})` }];
  },
  /** A correction keeps every record ID its accepted version declared: citing members may rely on them. */
  'keeps-records': ({ text, incumbent, recordId }) => {
    if (incumbent === undefined || recordId === undefined) return [];
    const now = new Set(declaredRecords(noteBody(text), recordId));
    const dropped = declaredRecords(noteBody(incumbent), recordId).filter((id) => !now.has(id));
    return dropped.length === 0
      ? []
      : [
          {
            rule: 'keeps-records',
            message: `drops record${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')} that the accepted version declared; keep ${dropped.length > 1 ? 'them' : 'it'} (correct the record's text instead)`,
          },
        ];
  },
  /** No placeholder left for later: TODO, TBD, FIXME or XXX outside fenced code. */
  'no-open-markers': ({ text }) => {
    const findings: CheckFinding[] = [];
    const offset = bodyOffset(text);
    proseLines(noteBody(text), (line, index) => {
      const marker = /\b(TODO|TBD|FIXME|XXX)\b/.exec(line)?.[1];
      if (marker !== undefined)
        findings.push({ rule: 'no-open-markers', line: offset + index + 1, message: `leaves \`${marker}\` in the text: finish the point or drop it` });
    });
    return findings;
  },
};

export interface FeedbackContext {
  readonly role: string;
  readonly type: string;
  readonly recordId: string | undefined;
  /** Role → text, as handed to it. */
  readonly cited: Readonly<Record<string, string>>;
}

export type Feedback = (context: FeedbackContext) => string | undefined;

export const FEEDBACK: Readonly<Record<string, Feedback>> = {
  /** Lists the record IDs the cited members declare, so a citation can be fixed without guessing. */
  'record-ids': ({ recordId, cited }) => {
    if (recordId === undefined) return undefined;
    const lines = Object.entries(cited).map(([role, text]) => {
      const ids = declaredRecords(noteBody(text), recordId);
      return `- ${role}: ${ids.length > 0 ? ids.join(', ') : 'declares no records'}`;
    });
    return lines.length === 0 ? undefined : `Records you may cite, as the members you were handed declare them:\n\n${lines.join('\n')}`;
  },
  /** Points back to the member type, whose rules win over the job instruction. */
  'member-type': ({ type }) => `Your member type is ${type}; where it and the job instruction differ, the type wins. Read it again before you answer.`,
};
