/**
 * The compose file's Prometheus and Grafana, checked by reading them (no container runtime runs here):
 * each mounted config file exists and parses, Prometheus scrapes every worker service on the port the
 * workers serve, and every metric the dashboard's panels and the alert rules query is one a worker
 * exports — the project's (src/observability/metrics.ts) or the SDK's runtime metrics the worker is
 * checked to serve (SDK_METRICS, test/observability/metrics.test.ts) — with labels that metric has.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exportedNames, METRICS, SDK_METRICS } from '../../src/observability/metrics.js';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string> | string[];
  volumes?: string[];
  ports?: string[];
}
const compose = parse(await readFile(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const workerServices = ['checkout-worker', 'launch-worker'];

/** Bind mounts of the repository's own files: `./path:container[:ro]`. */
const repoMounts = (service: Service) =>
  (service.volumes ?? [])
    .filter((volume) => volume.startsWith('./'))
    .map((volume) => {
      const [source, target] = volume.split(':');
      return { source: source as string, target: target as string };
    });

const prometheusConfig = parse(await readFile(join(root, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8')) as {
  rule_files: string[];
  scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; type: string; port: number }[] }[];
};
const rules = parse(await readFile(join(root, 'deploy', 'prometheus', 'rules.yml'), 'utf8')) as {
  groups: { name: string; rules: { alert: string; expr: string }[] }[];
};
const dashboard = JSON.parse(await readFile(join(root, 'deploy', 'grafana', 'dashboards', 'commonplace.json'), 'utf8')) as {
  uid: string;
  panels: { type: string; title: string; description?: string; targets?: { expr: string }[] }[];
};

/** Every name a worker serves, with the labels each carries (the SDK's series carry theirs, and Prometheus adds `service`). */
const served = new Map<string, Set<string> | 'any'>();
for (const definition of Object.values(METRICS)) {
  for (const name of exportedNames(definition))
    served.set(
      name,
      new Set([
        ...definition.labels,
        ...(definition.kind === 'histogram' ? ['le'] : []),
        'service',
        'namespace',
        'task_queue',
        'workflow_type',
        'activity_type',
      ]),
    );
}
for (const metric of SDK_METRICS) for (const name of exportedNames(metric)) served.set(name, 'any');

/** The metric names a PromQL expression reads (those of this project and of the SDK). */
const metricNames = (expr: string) => [...expr.matchAll(/\b(?:commonplace|temporal)_[a-z0-9_]+/g)].map((match) => match[0]);
/** The labels an expression groups or matches by (`by (…)`, `on (…)`, selectors' `label=`). */
const labelsUsed = (expr: string) => [
  ...[...expr.matchAll(/\b(?:by|on)\s*\(([^)]*)\)/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((label) => label.trim())
      .filter(Boolean),
  ),
  ...[...expr.matchAll(/[{,]\s*([a-z_]+)\s*(?:=~|!=|!~|=)/g)].map((match) => match[1] as string),
];

function unknownReads(expr: string): string[] {
  const names = metricNames(expr);
  const problems = names.filter((name) => !served.has(name)).map((name) => `unknown metric ${name}`);
  for (const label of labelsUsed(expr)) {
    const carriers = names.map((name) => served.get(name)).filter((labels) => labels !== undefined);
    if (!carriers.some((labels) => labels === 'any' || labels.has(label))) problems.push(`label ${label} is on none of ${names.join(', ')}`);
  }
  return problems;
}

describe('Prometheus and Grafana in docker-compose.yml', () => {
  test('their images are pinned to a version, not latest', () => {
    expect(services.prometheus?.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(services.grafana?.image).toMatch(/^grafana\/grafana:\d+\.\d+\.\d+$/);
  });

  test('every configuration file they mount from the repository exists', () => {
    const mounts = ['prometheus', 'grafana'].flatMap((name) => repoMounts(services[name] ?? {}));
    expect(mounts.length).toBeGreaterThanOrEqual(5);
    expect(mounts.filter((mount) => !existsSync(join(root, mount.source)))).toEqual([]);
  });

  test('Prometheus reads the rules file it is given, and Grafana the provisioning and dashboards', () => {
    const prometheus = repoMounts(services.prometheus ?? {});
    for (const file of prometheusConfig.rule_files) expect(prometheus.map((mount) => mount.target)).toContain(file);
    expect(services.prometheus?.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    const grafana = repoMounts(services.grafana ?? {}).map((mount) => `${mount.source} -> ${mount.target}`);
    expect(grafana).toEqual(
      expect.arrayContaining([
        './deploy/grafana/provisioning/datasources -> /etc/grafana/provisioning/datasources',
        './deploy/grafana/provisioning/dashboards -> /etc/grafana/provisioning/dashboards',
        './deploy/grafana/dashboards -> /var/lib/grafana/dashboards',
      ]),
    );
  });

  test('Prometheus scrapes every worker service on the port each worker serves its metrics on', () => {
    const targets = prometheusConfig.scrape_configs.flatMap((config) => config.dns_sd_configs ?? []);
    for (const name of workerServices) {
      const environment = services[name]?.environment;
      const metrics = (Array.isArray(environment) ? environment : Object.entries(environment ?? {}).map(([key, value]) => `${key}=${value}`)).find((entry) =>
        entry.startsWith('COMMONPLACE_METRICS='),
      );
      expect({ name, metrics }).toEqual({ name, metrics: 'COMMONPLACE_METRICS=0.0.0.0:9464' });
      expect({ name, scraped: targets.some((target) => target.names.includes(name) && target.port === 9464) }).toEqual({ name, scraped: true });
    }
    // The metrics stay inside the compose network: no worker publishes the port.
    for (const name of workerServices) expect(services[name]?.ports).toBeUndefined();
  });

  test('the Grafana data source names the uid the dashboard queries', async () => {
    const datasources = parse(await readFile(join(root, 'deploy', 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8')) as {
      datasources: { uid: string; url: string }[];
    };
    expect(datasources.datasources[0]).toMatchObject({ uid: 'commonplace-prometheus', url: 'http://prometheus:9090' });
    const uids = new Set(
      JSON.stringify(dashboard)
        .match(/"uid":\s*"[^"]+"/g)
        ?.map((entry) => entry.replace(/"uid":\s*/, '').replace(/"/g, '')),
    );
    uids.delete(dashboard.uid);
    expect([...uids]).toEqual(['commonplace-prometheus']);
  });
});

describe('the dashboard and the alert rules', () => {
  const queried = dashboard.panels.filter((panel) => panel.type !== 'row');

  test('every panel has a title, says what it answers, and queries at least one metric', () => {
    for (const panel of queried) {
      expect({
        title: panel.title,
        described: (panel.description ?? '').length > 20,
        metrics: (panel.targets ?? []).flatMap((target) => metricNames(target.expr)).length > 0,
      }).toEqual({ title: panel.title, described: true, metrics: true });
    }
  });

  test('every metric and label the panels query is one a worker exports', () => {
    const problems = queried.flatMap((panel) =>
      (panel.targets ?? []).flatMap((target) => unknownReads(target.expr).map((problem) => `${panel.title}: ${problem}`)),
    );
    expect(problems).toEqual([]);
  });

  test('every metric and label the alert rules query is one a worker exports', () => {
    const all = rules.groups.flatMap((group) => group.rules);
    expect(all.map((rule) => rule.alert).sort()).toEqual(['CommonplaceQuotaGateOverdue', 'CommonplaceRunWaitsForOperator', 'CommonplaceSpendNearCap']);
    expect(all.flatMap((rule) => unknownReads(rule.expr).map((problem) => `${rule.alert}: ${problem}`))).toEqual([]);
  });

  test('the panels cover spend, launches, limits, gates, verdicts, sweep progress and schedule-to-start', () => {
    const read = new Set(queried.flatMap((panel) => (panel.targets ?? []).flatMap((target) => metricNames(target.expr))));
    for (const name of [
      'commonplace_launch_cost_usd_sum',
      'commonplace_spend_cap_used_ratio',
      'commonplace_launches_total',
      'commonplace_usage_limits_total',
      'commonplace_quota_gate_closed',
      'commonplace_quota_gate_closed_seconds_total',
      'commonplace_pairs_reviewed_total',
      'commonplace_stops_total',
      'commonplace_tokens_total',
      'temporal_activity_schedule_to_start_latency_bucket',
    ]) {
      expect({ name, read: read.has(name) }).toEqual({ name, read: true });
    }
  });

  test('the checker refuses a metric no worker exports and a label the metric lacks', () => {
    expect(unknownReads('sum(rate(commonplace_launches[5m]))')).toEqual(['unknown metric commonplace_launches']);
    expect(unknownReads('sum by (run_id) (commonplace_launches_total)')).toEqual(['label run_id is on none of commonplace_launches_total']);
    expect(unknownReads('max by (workflow_kind) (commonplace_spend_cap_used_ratio)')).toEqual([
      'label workflow_kind is on none of commonplace_spend_cap_used_ratio',
    ]);
  });
});
