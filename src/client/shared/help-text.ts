/** The examples a command's help ends with; `--help` of every leaf command shows at least one. */
export const examples = (...commands: string[]): string =>
  `\n${commands.length === 1 ? 'Example' : 'Examples'}:\n${commands.map((command) => `  $ ${command}\n`).join('')}`;

export const KB_HELP = 'KB checkout (default: the Git root above the current directory that holds kb/)';
