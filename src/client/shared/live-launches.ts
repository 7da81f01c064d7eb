/** What a run's workers are doing now, from its pending `launch` activities' heartbeat details: a phrase a launch. */
import { defaultPayloadConverter, type Client } from '@temporalio/client';
import { describeLaunchActivity } from '../../harness/activity.js';
import type { LaunchActivity } from '../../harness/launch-contract.js';

/** The running launches of one workflow execution; empty when there are none or it cannot be described. */
export async function liveLaunches(client: Client, workflowId: string): Promise<string[]> {
  try {
    const described = await client.workflow.getHandle(workflowId).describe();
    return (described.raw.pendingActivities ?? [])
      .filter((activity) => activity.activityType?.name === 'launch')
      .map((activity) => {
        const payload = activity.heartbeatDetails?.payloads?.[0];
        const details = payload ? (defaultPayloadConverter.fromPayload(payload) as Partial<LaunchActivity> | undefined) : undefined;
        return details ? describeLaunchActivity(details) : 'starting';
      });
  } catch {
    return []; // a closed or not yet started execution, a blip: nothing live to say
  }
}

/** The live part of a progress line: the first running launch, and how many more run. */
export function liveSuffix(launches: readonly string[]): string {
  if (launches.length === 0) return '';
  return ` · now: ${launches[0]}${launches.length > 1 ? ` (+${launches.length - 1} more)` : ''}`;
}
