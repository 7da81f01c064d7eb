import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import { examples } from '../shared/help-text.js';
import type { ValidateOptions } from './validate-run.js';

/** The dispositions a draft's requiredness is checked under (src/kb/layouts.ts keeps the same list; a test holds them equal). */
export const DISPOSITION_NAMES = ['published', 'blocked', 'out-of-scope'] as const;

/**
 * `commonplace validate`: the operator's and the worker's view of the same checks the
 * workflows run — files of the KB by their types, or one draft in its artifact role.
 * Exit 0 when clean or only warnings, 1 with failures or bad input.
 */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('validate notes, schemas and layouts (default: all of kb/), or a draft in its role of an artifact')
    .argument('[targets...]', 'files, directories or globs to validate (default: the whole kb/); with --artifact, the one draft')
    .option('--artifact <dir>', 'validate the draft as a member of this artifact directory (with --role); the directory is not written')
    .option('--role <role>', 'the layout role the draft is a candidate for')
    .option('--layout <file>', "the artifact's layout file (default: `layout` in the run's parameters.json)")
    .option(
      '--disposition <disposition>',
      `check requiredness under this disposition (${DISPOSITION_NAMES.join(', ')}); default: the layout's declared member field, else published`,
    )
    .option('--json', 'print the findings as one JSON document (shape validate-files, or validate-draft with --artifact)')
    .option('--verbose', 'list every file, the clean and the plain-text ones too (default: problems only)')
    .option('--kb <dir>', 'the KB checkout (default: the Git root above the current directory that holds kb/)')
    .addHelpText(
      'after',
      examples(
        'commonplace validate',
        'commonplace validate kb/notes/ --json',
        'commonplace validate draft.md --artifact kb/agentic-systems/quill/AAS-1 --role runtime-report',
      ),
    )
    .action(
      action(async (targets: string[], _options: ValidateOptions, command: Command) =>
        (await import('./validate-run.js')).runValidate(targets, command.optsWithGlobals<ValidateOptions>()),
      ),
    );
}
