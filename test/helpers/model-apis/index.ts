// Local stand-ins of the model APIs the real harness CLIs call, and the profiles that point them there.
export { standInBaseUrl, standInKey, standInProfile, startStandIn, useStandIns, type StandIn, type StandInStats, type RecordedRequest } from './stand-in.js';
export { reply, unifiedRateLimitHeaders, type Reply } from './replies.js';
export {
  apiOf,
  contractProfile,
  harnessCli,
  harnessHome,
  harnessInstalled,
  pointAt,
  shippedProfiles,
  writeProfilesFile,
  type Pointing,
  type RawProfile,
  type RealHarness,
} from './harnesses.js';
export {
  completedResult,
  CONTRACT_TEST_MS,
  describeContract,
  describeRun,
  expectEnded,
  expectWroteProbe,
  probeFileDigest,
  probeProfile,
  stopProbeWorker,
  useContractStandIn,
  USAGE_LIMITS,
  type HarnessContract,
  type ProbeRun,
} from './contract.js';
export { apiReviewLaunch, type ApiProfileOptions, type ReviewInputs } from './review-launch.js';
