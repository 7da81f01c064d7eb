/**
 * The history recorder keeps what it recorded before: a history already under test/histories replays runs
 * begun under the code that recorded it, so a recording names it again only with `--replace`.
 */
import { jest } from '@jest/globals';
import { chooseRecordings, recordable } from '../histories/recording.js';

afterEach(() => chooseRecordings([]));

test('with no names, every history not yet kept is recorded, and a kept one is said kept, not recorded again', () => {
  const said = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    chooseRecordings([]);
    expect(recordable('full-pass-approved')).toBe(false);
    expect(said).toHaveBeenCalledWith('kept full-pass-approved: test/histories/full-pass-approved.json exists (pass --replace to record it again)');
    expect(recordable('a-history-not-recorded-yet')).toBe(true);
  } finally {
    said.mockRestore();
  }
});

test('with names, only those are recorded; --replace records a kept one again', () => {
  chooseRecordings(['--replace', 'full-pass-approved']);
  expect(recordable('full-pass-approved')).toBe(true);
  expect(recordable('revise-selection-approved')).toBe(false);
  chooseRecordings(['a-history-not-recorded-yet']);
  expect(recordable('a-history-not-recorded-yet')).toBe(true);
  expect(recordable('probe-completed')).toBe(false);
});

test('an option the recorder does not take is refused, naming it and the usage', () => {
  expect(() => chooseRecordings(['--force', 'probe-completed'])).toThrow('unknown option --force: the recorder takes [--replace] [NAME]...');
});
