// The trial's workflow code as release v2 ships it (scripts/worker-versioning-trial/trial.ts).
import { condition, defineSignal, setHandler, setWorkflowOptions } from '@temporalio/workflow';

export const goSignal = defineSignal('go');

/** Waits for one signal, then says which code finished it. */
export async function pinned(): Promise<string> {
  let go = false;
  setHandler(goSignal, () => void (go = true));
  await condition(() => go);
  return 'v2';
}

/** The same, declared to move to the current version at its next workflow task. */
export async function autoUpgrade(): Promise<string> {
  let go = false;
  setHandler(goSignal, () => void (go = true));
  await condition(() => go);
  return 'v2';
}
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, autoUpgrade);
