import { formatQuotaGates, type QuotaGateRow } from '../../src/client/operate/quota-run.js';

const now = Date.parse('2026-06-01T12:00:00.000Z');
const row = (account: string, quota: QuotaGateRow['quota']): QuotaGateRow => ({ account, workflowId: `quota/${account}`, quota });
const lines = (rows: QuotaGateRow[]) => formatQuotaGates(rows, now).split('\n');

describe('commonplace quota lists a gate as it stands now, not only as its memo last said', () => {
  test.each([
    [
      'a reset still ahead reads closed until it, with the minute past it when the gate opens',
      { status: 'closed-until', resetAt: '2026-06-01T13:00:00.000Z', version: 2 },
      'claude/a  closed until 2026-06-01T13:00:00.000Z (the gate opens at 2026-06-01T13:01:00.000Z, a minute past the reset)',
    ],
    [
      'a reset passed less than a minute ago reads as reopening, with when',
      { status: 'closed-until', resetAt: '2026-06-01T11:59:30.000Z', version: 2 },
      'claude/a  reopening: the limit reset at 2026-06-01T11:59:30.000Z; the gate opens at 2026-06-01T12:00:30.000Z, a minute past it',
    ],
    [
      'a reset passed more than a minute ago reads as open',
      { status: 'closed-until', resetAt: '2026-06-01T10:00:00.000Z', version: 2 },
      'claude/a  open (the limit reset at 2026-06-01T10:00:00.000Z)',
    ],
    [
      'a probe time passed reads as open for a probe',
      { status: 'closed-unknown', probeAt: '2026-06-01T11:45:00.000Z', version: 3 },
      'claude/a  open for a probe since 2026-06-01T11:45:00.000Z (reset unknown)',
    ],
    [
      'a probe still ahead reads closed',
      { status: 'closed-unknown', probeAt: '2026-06-01T12:15:00.000Z', version: 3 },
      'claude/a  closed, reset unknown: probes at 2026-06-01T12:15:00.000Z',
    ],
  ] as const)('%s', (_title, quota, line) => {
    expect(lines([row('claude/a', { ...quota })])).toEqual([line]);
  });
});
