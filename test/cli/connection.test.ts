import { execa } from 'execa';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer as createTlsServer, type Server, type TlsOptions } from 'node:tls';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { connectionFailure, connectionSettings } from '../../src/client/shared/connection.js';
import { UserError } from '../../src/client/shared/errors.js';
import { runCli, startCli } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';

const { env: server, address } = useDevServer();

let dir: string;
let configFile: string;
const caPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
beforeAll(async () => {
  dir = await scratch('commonplace-connection-');
  configFile = join(dir, 'temporal.toml');
  await writeFile(
    configFile,
    [
      '[profile.default]',
      'address = "default.example:7233"',
      'namespace = "from-default"',
      '',
      '[profile.staging]',
      'address = "staging.example:7233"',
      'namespace = "from-staging"',
      'api_key = "staging-key"',
      '[profile.staging.tls]',
      'server_name = "temporal.staging.example"',
      `server_ca_cert_data = """\n${caPem}"""`,
      '[profile.staging.grpc_meta]',
      'x-tenant = "acme"',
      '',
      '[profile.mtls]',
      'address = "mtls.example:7233"',
      '[profile.mtls.tls]',
      `client_cert_path = "${join(dir, 'missing-client.pem')}"`,
      `client_key_path = "${join(dir, 'missing-client.key')}"`,
      '',
    ].join('\n'),
  );
});

describe('connection settings', () => {
  const nothing = () => ({ TEMPORAL_CONFIG_FILE: join(dir, 'no-such.toml') });

  test('with nothing configured, the address is 127.0.0.1:7233 in namespace default, without TLS', () => {
    expect(connectionSettings(nothing(), {})).toEqual({ address: '127.0.0.1:7233', namespace: 'default' });
  });

  test('the default profile of TEMPORAL_CONFIG_FILE supplies the address and the namespace', () => {
    expect(connectionSettings({ TEMPORAL_CONFIG_FILE: configFile }, {})).toEqual({ address: 'default.example:7233', namespace: 'from-default' });
  });

  test('TEMPORAL_PROFILE picks a profile with its API key, TLS server name, CA and gRPC metadata', () => {
    const settings = connectionSettings({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' }, {});
    expect(settings).toMatchObject({ address: 'staging.example:7233', namespace: 'from-staging', apiKey: 'staging-key', metadata: { 'x-tenant': 'acme' } });
    expect(settings.tls).toMatchObject({ serverNameOverride: 'temporal.staging.example' });
    const tls = settings.tls as { serverRootCACertificate: Uint8Array };
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe(caPem);
  });

  test('--profile-name and --config-file choose the profile and the file over TEMPORAL_PROFILE and TEMPORAL_CONFIG_FILE', () => {
    const env = { TEMPORAL_CONFIG_FILE: join(dir, 'no-such.toml'), TEMPORAL_PROFILE: 'nosuch' };
    expect(connectionSettings(env, { configFile, profileName: 'staging' })).toMatchObject({ address: 'staging.example:7233' });
  });

  test('the environment overrides the profile, and the global options override the environment', () => {
    const env = { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging', TEMPORAL_ADDRESS: 'env.example:7233', TEMPORAL_NAMESPACE: 'from-env' };
    expect(connectionSettings(env, {})).toMatchObject({ address: 'env.example:7233', namespace: 'from-env' });
    expect(connectionSettings(env, { address: 'flag.example:7233', namespace: 'from-flag' })).toMatchObject({
      address: 'flag.example:7233',
      namespace: 'from-flag',
    });
    expect(connectionSettings(env, { namespace: 'from-flag' })).toMatchObject({ address: 'env.example:7233', namespace: 'from-flag' });
  });

  test.each([
    ['TEMPORAL_TLS=true turns TLS on', { TEMPORAL_TLS: 'true' }, { tls: {} }],
    ['an API key alone turns TLS on', { TEMPORAL_API_KEY: 'k' }, { tls: true, apiKey: 'k' }],
    ['TEMPORAL_TLS=false keeps an API key on plain TCP', { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }, { tls: false, apiKey: 'k' }],
    [
      'TEMPORAL_TLS_SERVER_NAME turns TLS on with that name',
      { TEMPORAL_TLS_SERVER_NAME: 'temporal.example' },
      { tls: { serverNameOverride: 'temporal.example' } },
    ],
    ['TEMPORAL_GRPC_META_* become request headers', { TEMPORAL_GRPC_META_X_TENANT: 'acme' }, { metadata: { 'x-tenant': 'acme' } }],
    ['an empty variable counts as unset', { TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '', TEMPORAL_TLS: '' }, {}],
  ])('%s', (_title, env, expected) => {
    expect(connectionSettings({ ...nothing(), ...env }, {})).toEqual({ address: '127.0.0.1:7233', namespace: 'default', ...expected });
  });

  test('client certificate and key data from the environment make the client certificate pair', () => {
    const settings = connectionSettings({ ...nothing(), TEMPORAL_TLS_CLIENT_CERT_DATA: 'CERT', TEMPORAL_TLS_CLIENT_KEY_DATA: 'KEY' }, {});
    const pair = (settings.tls as { clientCertPair: { crt: Uint8Array; key: Uint8Array } }).clientCertPair;
    expect([Buffer.from(pair.crt).toString(), Buffer.from(pair.key).toString()]).toEqual(['CERT', 'KEY']);
  });

  test('client certificate and key paths are read from the files they name', async () => {
    const crt = join(dir, 'client.pem');
    const key = join(dir, 'client.key');
    await writeFile(crt, 'CERT');
    await writeFile(key, 'KEY');
    const settings = connectionSettings({ ...nothing(), TEMPORAL_TLS_CLIENT_CERT_PATH: crt, TEMPORAL_TLS_CLIENT_KEY_PATH: key }, {});
    const pair = (settings.tls as { clientCertPair: { crt: Uint8Array; key: Uint8Array } }).clientCertPair;
    expect([Buffer.from(pair.crt).toString(), Buffer.from(pair.key).toString()]).toEqual(['CERT', 'KEY']);
  });

  test.each([
    [
      'a missing certificate named by the environment names the variable and the path',
      { TEMPORAL_TLS_CLIENT_CERT_PATH: '/no/such/client.pem', TEMPORAL_TLS_CLIENT_KEY_DATA: 'KEY' },
      {},
      /^cannot read the TLS client certificate \/no\/such\/client\.pem \(TEMPORAL_TLS_CLIENT_CERT_PATH\): no such file$/,
    ],
    [
      'a missing certificate named by a profile names the profile key, the file and the path',
      { TEMPORAL_PROFILE: 'mtls' },
      {},
      /^cannot read the TLS client certificate \S+missing-client\.pem \(tls\.client_cert_path of profile "mtls" in \S+temporal\.toml\): no such file$/,
    ],
    [
      'an unknown profile names itself, the file and the profiles there',
      {},
      { profileName: 'prod' },
      /^profile "prod" \(--profile-name\) is not in the Temporal config file \S+temporal\.toml; its profiles: default, staging, mtls$/,
    ],
    ['a certificate without its key says both are needed', { TEMPORAL_TLS_CLIENT_CERT_DATA: 'CERT' }, {}, /^a TLS client certificate is set without its key/],
  ])('%s', (_title, env, overrides, message) => {
    expect(() => connectionSettings({ TEMPORAL_CONFIG_FILE: configFile, ...env }, overrides)).toThrow(UserError);
    expect(() => connectionSettings({ TEMPORAL_CONFIG_FILE: configFile, ...env }, overrides)).toThrow(message);
  });
});

describe('connection failures', () => {
  test.each([
    ['UNAUTHENTICATED', 16, 'Request unauthorized.'],
    ['PERMISSION_DENIED', 7, 'Request unauthorized.'],
  ])('%s from the server says the credentials were refused, naming the address', async (_name, code, details) => {
    const error = Object.assign(new Error(`${code} ${_name}: ${details}`), { code, details });
    const failure = await connectionFailure({ address: 'temporal.example:7233', namespace: 'default', apiKey: 'k', tls: true }, error);
    expect(failure.message).toBe(
      `Temporal at temporal.example:7233 refused the credentials: ${details} (check TEMPORAL_API_KEY / TEMPORAL_TLS_CLIENT_* / the profile's api_key and tls settings)`,
    );
  });
});

describe('the global connection options on real commands', () => {
  // The environment points elsewhere, so a command that works proves the option won.
  const elsewhere = () => ({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_CONFIG_FILE: join(dir, 'no-such.toml') });

  test('--address reaches the given server over TEMPORAL_ADDRESS', async () => {
    const result = await runCli(['quota', '--address', address()], { env: elsewhere(), cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test('--address works before the command too', async () => {
    const result = await runCli(['--address', address(), 'review', 'schedule', 'list'], { env: elsewhere(), cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test('a namespace that does not exist is one line naming it and the address', async () => {
    const result = await runCli(['quota', '--address', address(), '--namespace', 'no-such-namespace'], { env: elsewhere(), cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr).trim().split('\n')).toEqual([
      `commonplace: namespace "no-such-namespace" does not exist on Temporal at ${address()}; name another with --namespace or TEMPORAL_NAMESPACE`,
    ]);
  });

  test('a profile chosen with --profile-name from --config-file supplies the address', async () => {
    const file = join(dir, 'local.toml');
    await writeFile(file, `[profile.local]\naddress = "${address()}"\nnamespace = "default"\n`);
    const result = await runCli(['quota', '--profile-name', 'local', '--config-file', file], {
      env: { TEMPORAL_CONFIG_FILE: join(dir, 'no-such.toml') },
      cwd: dir,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test('TEMPORAL_PROFILE picks the profile as --profile-name does', async () => {
    const file = join(dir, 'local-env.toml');
    await writeFile(file, `[profile.local]\naddress = "${address()}"\n`);
    const result = await runCli(['quota'], { env: { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'local' }, cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test.each([['quota'], ['worker']])('TLS to the plain dev server makes %s name the failed handshake, without a Node deprecation warning', async (command) => {
    const state = join(dir, `state-${command}`);
    const args = command === 'worker' ? ['worker', '--state', state] : [command];
    const result = await runCli([...args, '--address', address()], { env: { ...elsewhere(), TEMPORAL_TLS: 'true' }, cwd: dir });
    expect(result.exitCode).toBe(1);
    const lines = String(result.stderr).trim().split('\n');
    expect(lines.at(-1)).toBe(
      `commonplace: TLS handshake with ${address()} failed: the server answered without TLS (wrong version number) (check TEMPORAL_TLS_* / the profile's tls settings)`,
    );
    expect(result.stderr).not.toMatch(/DEP0123|DeprecationWarning/);
  });

  describe('against a TLS server whose certificate the client does not trust', () => {
    let server: Server;
    let tlsAddress: string;
    beforeAll(async () => {
      const key = join(dir, 'server.key');
      const crt = join(dir, 'server.pem');
      await execa('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '1', '-subj', '/CN=localhost']);
      server = createTlsServer({ key: await readFile(key), cert: await readFile(crt) }, (socket) => socket.end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      tlsAddress = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    test('the handshake failure is named with the reason, and no deprecation warning leaks', async () => {
      const result = await runCli(['quota', '--address', tlsAddress], { env: { ...elsewhere(), TEMPORAL_TLS: 'true' }, cwd: dir });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr).trim().split('\n')).toEqual([
        `commonplace: TLS handshake with ${tlsAddress} failed: self-signed certificate (check TEMPORAL_TLS_* / the profile's tls settings)`,
      ]);
    });

    test('a server name that is not in the certificate is named as the handshake failure', async () => {
      const result = await runCli(['quota', '--address', tlsAddress], {
        env: { ...elsewhere(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'server.pem'), TEMPORAL_TLS_SERVER_NAME: 'temporal.example' },
        cwd: dir,
      });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr).trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^commonplace: TLS handshake with ${tlsAddress} failed: .*temporal\\.example.* \\(check TEMPORAL_TLS_\\* / the profile's tls settings\\)$`,
          ),
        ),
      ]);
    });
  });

  describe('through a TLS proxy in front of the dev server, with a CA of its own', () => {
    const openConnections = new Set<Socket>();
    const proxies: Server[] = [];
    let tlsAddress: string;
    let mtlsAddress: string;
    const pem = (name: string) => join(dir, 'pki', name);

    async function openssl(...args: string[]): Promise<void> {
      await execa('openssl', args, { cwd: join(dir, 'pki') });
    }

    /** A TLS-terminating proxy to the dev server, speaking h2 as Temporal's frontend does. */
    async function proxy(options: TlsOptions): Promise<string> {
      const [, upstreamPort] = address().split(':');
      const proxyServer = createTlsServer({ ...options, ALPNProtocols: ['h2'] }, (socket) => {
        const upstream = tcpConnect(Number(upstreamPort), '127.0.0.1');
        for (const end of [socket, upstream]) {
          openConnections.add(end);
          end.on('close', () => openConnections.delete(end));
        }
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
      });
      proxyServer.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
      proxies.push(proxyServer);
      return `127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;
    }

    beforeAll(async () => {
      await mkdir(join(dir, 'pki'), { recursive: true });
      const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
      await openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=commonplace test CA');
      await writeFile(pem('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
      await writeFile(pem('client.ext'), 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
      for (const name of ['server', 'client']) {
        await openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name === 'server' ? 'localhost' : 'commonplace'}`);
        await openssl(
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-CAcreateserial',
          '-out',
          `${name}.pem`,
          '-days',
          '1',
          '-extfile',
          `${name}.ext`,
        );
      }
      const [ca, key, cert] = await Promise.all([readFile(pem('ca.pem')), readFile(pem('server.key')), readFile(pem('server.pem'))]);
      tlsAddress = await proxy({ key, cert });
      mtlsAddress = await proxy({ key, cert, ca, requestCert: true, rejectUnauthorized: true });
    });
    afterAll(async () => {
      for (const socket of openConnections) socket.destroy();
      await Promise.all(proxies.map((proxyServer) => new Promise((resolve) => proxyServer.close(resolve))));
    });

    const withCa = () => ({ ...elsewhere(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: pem('ca.pem') });
    const withClientCert = () => ({ ...withCa(), TEMPORAL_TLS_CLIENT_CERT_PATH: pem('client.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: pem('client.key') });

    test.each([
      ['the server CA alone, to an IP address', () => withCa(), () => tlsAddress],
      ['the server CA and a server name', () => ({ ...withCa(), TEMPORAL_TLS_SERVER_NAME: 'localhost' }), () => tlsAddress],
      [
        'a server name the certificate lacks, with host verification turned off',
        () => ({ ...withCa(), TEMPORAL_TLS_SERVER_NAME: 'temporal.example', TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }),
        () => tlsAddress,
      ],
      ['a client certificate the server requires', () => withClientCert(), () => mtlsAddress],
    ])('a client command connects with %s, and stderr stays empty (no DEP0123 warning)', async (_title, tlsEnv, target) => {
      const result = await runCli(['quota', '--address', target()], { env: tlsEnv(), cwd: dir });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    });

    test('a profile in temporal.toml supplies the address, the CA and the client certificate', async () => {
      const file = join(dir, 'mtls.toml');
      await writeFile(
        file,
        [
          `[profile.secure]`,
          `address = "${mtlsAddress}"`,
          '[profile.secure.tls]',
          `server_ca_cert_path = "${pem('ca.pem')}"`,
          `client_cert_path = "${pem('client.pem')}"`,
          `client_key_path = "${pem('client.key')}"`,
          '',
        ].join('\n'),
      );
      const result = await runCli(['quota', '--config-file', file, '--profile-name', 'secure'], {
        env: { TEMPORAL_CONFIG_FILE: join(dir, 'no-such.toml') },
        cwd: dir,
      });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    });

    test('a server that requires a client certificate and gets none is a named handshake failure', async () => {
      const result = await runCli(['quota', '--address', mtlsAddress], { env: withCa(), cwd: dir });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr).trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^commonplace: TLS handshake with ${mtlsAddress} failed: .*certificate.* \\(check TEMPORAL_TLS_\\* / the profile's tls settings\\)$`),
        ),
      ]);
    });

    test('a worker connects through mutual TLS and polls the commonplace task queue', async () => {
      const worker = startCli(['worker', '--state', join(dir, 'tls-worker'), '--address', mtlsAddress], { env: withClientCert(), cwd: dir });
      try {
        await waitFor(
          'a poller on task queue commonplace',
          async () => {
            if (worker.exitCode !== null) throw new Error(`the worker exited: ${String((await worker).stderr)}`);
            const queue = await server().client.workflowService.describeTaskQueue({
              namespace: server().namespace ?? 'default',
              taskQueue: { name: 'commonplace' },
              taskQueueType: 1,
            });
            return (queue.pollers ?? []).length > 0;
          },
          120_000,
        );
      } finally {
        worker.kill('SIGINT');
      }
      const result = await worker;
      expect(result.stderr).not.toMatch(/DEP0123|DeprecationWarning|TLS handshake|cannot reach/);
    });
  });
});
