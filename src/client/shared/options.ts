/**
 * Options read once, at a command's boundary: zod fields that turn commander's strings into typed
 * values with the one-line message each bad value has always had, and the parse that reports the
 * first of them. Loaded by the run modules only (zod stays out of `--help`).
 */
import { z } from 'zod';
import { UserError } from './errors.js';

/** The options as one typed input, or a UserError with the first bad option's message (the schema's key order). */
export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UserError(parsed.error.issues[0]?.message ?? 'bad options');
  return parsed.data;
}

/** `--<flag> <n>`: a positive whole number. */
export const positiveWhole = (flag: string) =>
  z.string().transform((text, context) => {
    const value = Number(text);
    if (Number.isInteger(value) && value >= 1) return value;
    context.addIssue({ code: 'custom', message: `--${flag} must be a positive whole number, got "${text}"` });
    return z.NEVER;
  });

/** `--max-cost <usd>`: the cap it asks for (a leading `$` allowed), undefined when not given. */
export const maxCostOption = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined) return undefined;
    const value = Number(text.replace(/^\$/, ''));
    if (Number.isFinite(value) && value > 0) return value;
    context.addIssue({ code: 'custom', message: `--max-cost must be a positive amount of US dollars, got "${text}"` });
    return z.NEVER;
  });

/** Whether a flag was given (commander leaves absent flags undefined). */
export const flag = z.boolean().optional();
