/** A run's spend inside its workflow: `askWithin` (ask.ts) asks it before every launch, so every workflow makes the same decision (`spendDecision`). */
import { metricMeter } from '@temporalio/workflow';
import type { AskOutcome, BilledTry, LaunchResult } from '../harness/launch-contract.js';
import { recordSpendCap } from '../observability/metrics.js';
import {
  addLaunch,
  addTotals,
  billedTries,
  settledSpendLimit,
  spendDecision,
  spendFit,
  spendLimitStop,
  spendProgress,
  sumTotals,
  type SpendProgress,
  type SpendTotals,
} from '../runs/spend.js';
import type { Stop, StopOf } from '../runs/stop.js';

export class Spend {
  /** Launches started and not yet ended: each is estimated at the mean cost before another starts. */
  inFlight = 0;

  /** `totals`: this execution's launches (the workflow's own counts, where it keeps them); `before`: earlier executions' against the same cap. */
  constructor(
    public capUsd: number | undefined,
    readonly totals: SpendTotals = sumTotals(),
    private readonly before?: SpendTotals,
  ) {}

  all(): SpendTotals {
    return this.before ? sumTotals(this.before, this.totals) : this.totals;
  }

  /** Before a launch: the `spend-limit` stop when starting it would take the run past its cap, else undefined. */
  over(): StopOf<'spend-limit'> | undefined {
    const decision = spendDecision({ capUsd: this.capUsd, totals: this.all(), inFlight: this.inFlight });
    return decision.go ? undefined : spendLimitStop(decision);
  }

  /** Before a provider batch of `count` launches: how many fit under the cap, and the `spend-limit` stop the rest meet. */
  fit(count: number): { fits: number; stop?: StopOf<'spend-limit'> } {
    const { fits, refused } = spendFit({ capUsd: this.capUsd, totals: this.all(), inFlight: this.inFlight }, count);
    return refused === undefined ? { fits } : { fits, stop: spendLimitStop(refused) };
  }

  /** Runs one launch as in flight, and adds every try of it the provider billed once it ended (a failed one's too). */
  async track(launch: () => Promise<AskOutcome>): Promise<AskOutcome> {
    this.inFlight += 1;
    try {
      const outcome = await launch();
      if ('result' in outcome) {
        if (!outcome.result.adopted) this.add(outcome.result);
      } else for (const billed of billedTries(outcome)) this.addBilled(billed);
      return outcome;
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Adds a launch that ran (its tokens, and its cost from the harness or the price table), with its earlier billed tries. */
  add(result: LaunchResult): void {
    for (const billed of result.billedBefore ?? []) addLaunch(this.totals, billed);
    this.addBilled(result);
  }

  /** Adds one billed try: a launch that ran, or a try whose answer failed its check (a provider batch's too). */
  addBilled(billed: BilledTry): void {
    addLaunch(this.totals, billed);
    recordSpendCap(metricMeter, this.all().costUsd, this.capUsd);
  }

  addTotals(billed: SpendTotals): void {
    addTotals(this.totals, billed);
    recordSpendCap(metricMeter, this.all().costUsd, this.capUsd);
  }

  /** Stops as the operator reads them: a spend-limit stop's figures are the spend now, after the launches in flight at the stop settled. */
  settled(stops: readonly Stop[]): readonly Stop[] {
    return stops.map((stop) => (stop.kind === 'spend-limit' ? settledSpendLimit(stop, this.all(), this.capUsd) : stop));
  }

  progress(): SpendProgress {
    return spendProgress(this.capUsd, this.all());
  }
}
