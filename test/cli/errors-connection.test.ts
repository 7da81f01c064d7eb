// The connection's error paths through the real CLI: each is exit 1 and one line naming what is wrong. No server is needed.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { unreachableHint } from '../../src/client/shared/connection.js';

let dir: string;
let configFile: string;
beforeAll(async () => {
  dir = await scratch('commonplace-errors-connection-');
  configFile = join(dir, 'temporal.toml');
  await writeFile(configFile, '[profile.default]\naddress = "127.0.0.1:1"\n\n[profile.cloud]\naddress = "cloud.example:7233"\n');
  await writeFile(join(dir, 'broken.toml'), '[profile.default\naddress = 1\n');
});

// Point the config file and the user's config directory into the scratch directory, so the machine's own temporal.toml plays no part.
const env = (extra: Record<string, string> = {}) => ({ TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml'), XDG_CONFIG_HOME: dir, ...extra });

async function oneLineError(args: string[], extra: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, { env: env(extra), cwd: dir });
  expect(result.exitCode).toBe(1);
  expect(result.stdout).toBe('');
  // The worker says what it is doing ("loading the worker...", "connecting to ..."): those are progress, not the error.
  const lines = String(result.stderr)
    .trim()
    .split('\n')
    .filter((line) => !line.endsWith('...'));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

test.each([
  [
    'an address where no server listens',
    ['quota', '--address', '127.0.0.1:1'],
    {},
    /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 \(.*\); start a local one there with `.*commonplace\S* dev --port 1 --ui-port 1001 --address 127\.0\.0\.1:1`, or set TEMPORAL_ADDRESS \/ --address$/,
  ],
  [
    'a client certificate path that does not exist',
    ['quota'],
    { TEMPORAL_TLS_CLIENT_CERT_PATH: '/no/such/client.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/no/such/client.key' },
    /^commonplace: cannot read the TLS client certificate \/no\/such\/client\.pem \(TEMPORAL_TLS_CLIENT_CERT_PATH\): no such file$/,
  ],
  [
    'a server CA path that does not exist',
    ['quota'],
    { TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/no/such/ca.pem' },
    /^commonplace: cannot read the TLS server CA certificate \/no\/such\/ca\.pem \(TEMPORAL_TLS_SERVER_CA_CERT_PATH\): no such file$/,
  ],
  [
    'a client certificate without its key',
    ['quota'],
    { TEMPORAL_TLS_CLIENT_CERT_DATA: 'CERT' },
    /^commonplace: a TLS client certificate is set without its key: /,
  ],
  [
    'a missing --config-file',
    ['quota', '--config-file', '/no/such/temporal.toml'],
    {},
    /^commonplace: the Temporal config file \/no\/such\/temporal\.toml \(--config-file\) does not exist$/,
  ],
  [
    'a config file that is not TOML',
    ['quota'],
    { TEMPORAL_CONFIG_FILE: '{dir}/broken.toml' },
    /^commonplace: cannot use the Temporal config file \S+broken\.toml: .+$/,
  ],
  [
    'TEMPORAL_PROFILE with no config file',
    ['quota'],
    { TEMPORAL_PROFILE: 'staging' },
    /^commonplace: profile "staging" \(TEMPORAL_PROFILE\) is not in the Temporal config file \S+absent\.toml, which does not exist$/,
  ],
])('%s is one line naming it, exit 1', async (_title, args, extra, message) => {
  const resolved = Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, value.replace('{dir}', dir)]));
  expect(await oneLineError(args, resolved)).toMatch(message);
});

test('an unknown --profile-name names the profile, the file and the profiles in it', async () => {
  expect(await oneLineError(['quota', '--profile-name', 'prod', '--config-file', configFile])).toBe(
    `commonplace: profile "prod" (--profile-name) is not in the Temporal config file ${configFile}; its profiles: default, cloud`,
  );
});

test('a worker with a bad certificate path stops before it writes its state directory', async () => {
  const state = join(dir, 'worker-state');
  expect(
    await oneLineError(['worker', '--state', state], {
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/no/such/client.pem',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/no/such/client.key',
    }),
  ).toMatch(/^commonplace: cannot read the TLS client certificate \/no\/such\/client\.pem \(TEMPORAL_TLS_CLIENT_CERT_PATH\)/);
  expect(existsSync(state)).toBe(false);
});

test('the profile named by TEMPORAL_PROFILE in the default config file supplies the address', async () => {
  await mkdir(join(dir, 'temporalio'), { recursive: true });
  await writeFile(join(dir, 'temporalio', 'temporal.toml'), '[profile.nowhere]\naddress = "127.0.0.1:1"\n');
  const result = await runCli(['quota'], { env: { XDG_CONFIG_HOME: dir, TEMPORAL_PROFILE: 'nowhere', TEMPORAL_CONFIG_FILE: '' }, cwd: dir });
  expect(result.exitCode).toBe(1);
  expect(String(result.stderr)).toMatch(/^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 /);
});

test.each([
  ['the default local address', '127.0.0.1:7233', /start a local one there with `\S.* dev(?: --address 127\.0\.0\.1:7233)?`/],
  ['another local port, whose Web UI port moves with it', 'localhost:7300', /start a local one there with `\S.* dev --port 7300 --ui-port 8300/],
  ['a port whose Web UI port would not exist', '127.0.0.1:65000', /dev --port 65000`/],
  ['a remote server', 'temporal.example:7233', /^check that the server there is up and reachable, or set TEMPORAL_ADDRESS \/ --address$/],
])('an unreachable server at %s gets the hint that fits it', (_title, address, hint) => {
  expect(unreachableHint(address)).toMatch(hint);
});
