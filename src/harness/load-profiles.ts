import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../paths.js';
import { parseProfiles, ProfileError, type Profile } from './profiles.js';

/** The KB's own profiles file, relative to the checkout root. */
export const kbProfilesPath = join('kb', 'instructions', 'worker-profiles.yaml');

/** The profiles file that applies: an explicit one, else the KB's, else the shipped defaults. */
export function profilesSource(options: { file?: string; checkout?: string }): string {
  if (options.file) return options.file;
  if (options.checkout && existsSync(join(options.checkout, kbProfilesPath))) return join(options.checkout, kbProfilesPath);
  return join(packageRoot(), 'defaults', 'worker-profiles.yaml');
}

/** Loads the profiles file through zod; a YAML or schema error names the file. */
export function loadProfiles(source: string): Map<string, Profile> {
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new ProfileError(`cannot read worker profiles ${source}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new ProfileError(`worker profiles ${source} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseProfiles(data, source);
}
