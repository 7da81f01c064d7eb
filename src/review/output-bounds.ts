/**
 * The bounds every worker output is read within: valid UTF-8 text, no NUL bytes, under a size cap.
 * An output outside them is a rejected candidate with a finding (re-asked within the budget) and is
 * never written anywhere as a result.
 *
 * PURE MODULE: no Node built-ins (TextDecoder is a web global).
 */
import type { Finding } from '../kb/findings.js';

/** The default cap on one output: 1 MiB (a profile's `max-output` changes it). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export type OutputText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly findings: readonly Finding[] };

type BoundsOptions = { readonly file: string; readonly maxBytes?: number; readonly criterion?: string };

const failed = (options: BoundsOptions, rule: string, message: string): OutputText => ({
  ok: false,
  findings: [{ file: options.file, rule, severity: 'fail', message, ...(options.criterion !== undefined && { criterion: options.criterion }) }],
});

/** The refusal of an output of `size` bytes over the cap (`maxBytes`, else the default). */
export function outputTooLarge(size: number, options: BoundsOptions): OutputText {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return failed(options, 'output-too-large', `the output is ${size} bytes, over the cap of ${maxBytes}; write a shorter answer`);
}

/** Reads an output's bytes as text within the bounds, or says which bound it broke. */
export function outputText(bytes: Uint8Array, options: BoundsOptions): OutputText {
  if (bytes.length > (options.maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES)) return outputTooLarge(bytes.length, options);
  const nul = bytes.indexOf(0);
  if (nul >= 0) return failed(options, 'output-binary', `the output holds a NUL byte (at byte ${nul}): it must be text`);
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return failed(options, 'output-encoding', 'the output is not valid UTF-8 text');
  }
}
