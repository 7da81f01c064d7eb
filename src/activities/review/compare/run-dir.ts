/** Where a compare run keeps its files (the layout types.ts documents), and its routes' asking runs. */
import { join } from 'node:path';
import { sha256 } from '../../../fs/digest.js';
import { routeFileName } from '../../../review/compare/types.js';

export { compareRunDir } from '../../../review/compare/run-files.js';

const routeStem = (route: string) => routeFileName(route).replace(/\.jsonl$/, '');

export const sampleFile = (runDir: string) => join(runDir, 'sample.json');
export const verdictsFile = (runDir: string, route: string) => join(runDir, 'verdicts', routeFileName(route));
export const answersDir = (runDir: string, route: string) => join(runDir, 'answers', routeStem(route));
/** An accepted verdict while its route is asked: one file per pair, written atomically (a retried accept rewrites it), gathered into the route's verdicts file when the route is done. */
export const answerFile = (runDir: string, route: string, note: string, criterion: string) =>
  join(answersDir(runDir, route), `${sha256(`${note}\0${criterion}`).slice(0, 24)}.json`);

/** The asking run of one route: its launch directories, batch files and problems, like a sweep's (kb/reports/state/review/runs/<ask-run>/). */
export const askRunIdOf = (runId: string, route: string) => `${runId}--${routeStem(route)}`;
