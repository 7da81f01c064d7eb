import { metricsOption, metricsUrl } from '../../src/client/operate/metrics-option.js';
import { criterionKindOf } from '../../src/observability/metrics.js';

describe('--metrics', () => {
  test.each([
    ['9464', '127.0.0.1:9464'],
    ['0.0.0.0:9464', '0.0.0.0:9464'],
    ['localhost:9100', 'localhost:9100'],
    ['[::1]:9464', '[::1]:9464'],
    [' 9464 ', '127.0.0.1:9464'],
  ])('%s listens on %s', (value, bindAddress) => {
    expect(metricsOption.parse(value)).toBe(bindAddress);
  });

  test('absent or empty, it opens no endpoint', () => {
    expect(metricsOption.parse(undefined)).toBeUndefined();
    expect(metricsOption.parse('')).toBeUndefined();
  });

  test.each(['nine', '0', '65536', 'host:', ':9464', 'http://127.0.0.1:9464', '127.0.0.1:9464/metrics'])(
    '%s is refused with the message naming the option and the value',
    (value) => {
      const parsed = metricsOption.safeParse(value);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(
        `--metrics (or COMMONPLACE_METRICS) must be a port or HOST:PORT, such as 9464 or 0.0.0.0:9464, got "${value}"`,
      );
    },
  );

  test.each([
    ['127.0.0.1:9464', 'http://127.0.0.1:9464/metrics'],
    ['0.0.0.0:9464', 'http://127.0.0.1:9464/metrics'],
    ['metrics.internal:9100', 'http://metrics.internal:9100/metrics'],
  ])('a worker listening on %s is scraped at %s', (bindAddress, url) => {
    expect(metricsUrl(bindAddress)).toBe(url);
  });
});

describe('the criterion_kind label', () => {
  test.each([
    ['frontmatter/title-as-claim', 'gate'],
    ['kb/types/note.md', 'type-spec'],
    ['kb/notes/COLLECTION.md', 'collection'],
    ['kb/instructions/critique-note.md', 'instruction'],
  ])('criterion %s is a %s', (id, kind) => {
    expect(criterionKindOf(id)).toBe(kind);
  });
});
