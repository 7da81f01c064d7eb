/** `--metrics ADDR` (or COMMONPLACE_METRICS), shared by `commonplace worker` and `commonplace dev`: where the Prometheus endpoint listens. */
import { z } from 'zod';

/** The host a bare port listens on: this machine only, unless the operator names another. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

const hostPort = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/;

/** `--metrics`: a port (on 127.0.0.1) or HOST:PORT, as the bind address; undefined when not asked for. */
export const metricsOption = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined || text.trim() === '') return undefined;
    const match = hostPort.exec(text.trim());
    const port = Number(match?.[2]);
    if (match && port >= 1 && port <= 65535) return `${match[1] ?? DEFAULT_METRICS_HOST}:${port}`;
    context.addIssue({
      code: 'custom',
      message: `--metrics (or COMMONPLACE_METRICS) must be a port or HOST:PORT, such as 9464 or 0.0.0.0:9464, got "${text}"`,
    });
    return z.NEVER;
  });

/** The URL Prometheus scrapes for a bind address (a wildcard host is shown as this machine). */
export function metricsUrl(bindAddress: string): string {
  const host = bindAddress.slice(0, bindAddress.lastIndexOf(':'));
  const port = bindAddress.slice(bindAddress.lastIndexOf(':') + 1);
  const shown = host === '0.0.0.0' || host === '[::]' ? DEFAULT_METRICS_HOST : host;
  return `http://${shown}:${port}/metrics`;
}
