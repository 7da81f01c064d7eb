import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConfig, loadClientConfigProfile, type ClientConfigTLS, type ConfigDataSource } from '@temporalio/envconfig';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { connectionOverrides, type ConnectionOverrides } from './connection-overrides.js';
import { givenAddress, runnable } from './command-line.js';
import { withAddressStamp } from './address-stamp.js';
import { UserError } from './errors.js';
import { firstLine, muteIpServerNameWarning, probeTls, withCertificateName, type TLSConfig, type TlsTarget } from './tls-probe.js';
import { processTracing } from '../../observability/tracing-switch.js';
import { releaseStamp } from '../../release-stamp.js';
import { installedRelease } from '../../workflow-code.js';

export interface ConnectionSettings extends TlsTarget {
  namespace: string;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/** Where Temporal's tools look for temporal.toml when neither --config-file nor TEMPORAL_CONFIG_FILE names one. */
export function defaultConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  if (platform() === 'win32') return join(env.APPDATA ?? homedir(), 'temporalio', 'temporal.toml');
  if (platform() === 'darwin') return join(env.HOME ?? homedir(), 'Library', 'Application Support', 'temporalio', 'temporal.toml');
  return join(env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config'), 'temporalio', 'temporal.toml');
}

interface Origin {
  file: string;
  profile: string;
  env: NodeJS.ProcessEnv;
}

/** A TLS file's bytes, or an error naming the file and the setting it came from: the variable when it holds this path, else the profile's key. */
function readNamed(source: ConfigDataSource | undefined, what: string, key: string, origin: Origin): Uint8Array | undefined {
  if (!source) return undefined;
  if (!('path' in source)) return typeof source.data === 'string' ? Buffer.from(source.data) : source.data;
  try {
    return readFileSync(source.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : firstLine(error);
    const variable = `TEMPORAL_TLS_${key.toUpperCase()}`;
    const setting = origin.env[variable] === source.path ? variable : `tls.${key} of profile "${origin.profile}" in ${origin.file}`;
    throw new UserError(`cannot read the ${what} ${source.path} (${setting}): ${reason}`);
  }
}

/** The SDK's TLS rules (a tls table turns TLS on, `disabled` turns it off, an API key alone turns it on), with every unreadable file named. */
function tlsFromProfile(tls: ClientConfigTLS | undefined, apiKey: string | undefined, origin: Origin): TLSConfig | boolean | undefined {
  if (tls?.disabled) return false;
  if (!tls) return apiKey ? true : undefined;
  const crt = readNamed(tls.clientCert, 'TLS client certificate', 'client_cert_path', origin);
  const key = readNamed(tls.clientKey, 'TLS client key', 'client_key_path', origin);
  if (Boolean(crt) !== Boolean(key))
    throw new UserError(
      `a TLS client ${crt ? 'certificate' : 'key'} is set without its ${crt ? 'key' : 'certificate'}: set both TEMPORAL_TLS_CLIENT_CERT_* and TEMPORAL_TLS_CLIENT_KEY_* (or the profile's client_cert_* and client_key_*)`,
    );
  const config: TLSConfig = {};
  if (tls.serverName) config.serverNameOverride = tls.serverName;
  const ca = readNamed(tls.serverCACert, 'TLS server CA certificate', 'server_ca_cert_path', origin);
  if (ca) config.serverRootCACertificate = ca;
  if (crt && key) config.clientCertPair = { crt, key };
  return config;
}

/** Connection settings as Temporal's tools resolve them: options, TEMPORAL_* variables, temporal.toml profile; else IPv4 loopback. */
export function connectionSettings(env: NodeJS.ProcessEnv = process.env, overrides: ConnectionOverrides = connectionOverrides()): ConnectionSettings {
  if (overrides.configFile && !existsSync(overrides.configFile))
    throw new UserError(`the Temporal config file ${overrides.configFile} (--config-file) does not exist`);
  const file = overrides.configFile ?? (env.TEMPORAL_CONFIG_FILE || defaultConfigFile(env));
  const configSource = { path: file };
  // An empty variable counts as unset, as it did before profiles; an empty TEMPORAL_GRPC_META_* still removes a profile's header.
  const envVars = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && (entry[1] !== '' || entry[0].startsWith('TEMPORAL_GRPC_META_'))),
  );
  const profileName = overrides.profileName ?? (env.TEMPORAL_PROFILE || undefined);
  let profile;
  try {
    const { profiles } = loadClientConfig({ configSource, overrideEnvVars: envVars });
    if (profileName && !(profileName in profiles)) {
      const from = overrides.profileName ? '--profile-name' : 'TEMPORAL_PROFILE';
      const known = Object.keys(profiles);
      const there = known.length ? `; its profiles: ${known.join(', ')}` : existsSync(file) ? '; it has no profiles' : ', which does not exist';
      throw new UserError(`profile "${profileName}" (${from}) is not in the Temporal config file ${file}${there}`);
    }
    profile = loadClientConfigProfile({ profile: profileName, configSource, overrideEnvVars: envVars });
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot use the Temporal config file ${file}: ${firstLine(error)}`);
  }
  const settings: ConnectionSettings = {
    address: overrides.address || profile.address || '127.0.0.1:7233',
    namespace: overrides.namespace || profile.namespace || 'default',
  };
  const tls = tlsFromProfile(profile.tls, profile.apiKey, { file, profile: profileName ?? 'default', env });
  if (tls !== undefined) settings.tls = tls;
  if (profile.apiKey) settings.apiKey = profile.apiKey;
  if (profile.grpcMeta && Object.keys(profile.grpcMeta).length) settings.metadata = profile.grpcMeta;
  // The SDK reads the variable but drops it from the profile it returns.
  if (settings.tls && ['true', '1'].includes(env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION ?? '')) settings.disableHostVerification = true;
  return settings;
}

/** UNAUTHENTICATED (16) or PERMISSION_DENIED (7), by its code or in its message. */
function refusedCredentials(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return [16, 7].includes(code as number) || /\b(UNAUTHENTICATED|PERMISSION_DENIED|Unauthenticated|PermissionDenied)\b/.test(String((error as Error).message));
}

/** Names why a connection failed: the credentials, the TLS handshake, or no server answering. */
export async function connectionFailure(settings: ConnectionSettings, error: unknown): Promise<UserError> {
  if (error instanceof UserError) return error;
  if (error instanceof TypeError) return new UserError(error.message); // the SDK's check of the options, e.g. an API key and an Authorization header both set
  if (refusedCredentials(error))
    return new UserError(
      `Temporal at ${settings.address} refused the credentials: ${firstLine(error)} (check TEMPORAL_API_KEY / TEMPORAL_TLS_CLIENT_* / the profile's api_key and tls settings)`,
    );
  if (settings.tls) {
    const handshake = await probeTls(settings);
    if (handshake.outcome === 'refused')
      return new UserError(`TLS handshake with ${settings.address} failed: ${handshake.reason} (check TEMPORAL_TLS_* / the profile's tls settings)`);
  }
  return new UserError(`cannot reach Temporal at ${settings.address} (${firstLine(error)}); ${unreachableHint(settings.address)}`);
}

/** What to do about a server that does not answer: on this machine, start one there (as pasted, it serves that port); elsewhere, check it. */
export function unreachableHint(address: string): string {
  const [, host = '', port = ''] = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address) ?? [];
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) return 'check that the server there is up and reachable, or set TEMPORAL_ADDRESS / --address';
  // Away from the default port the Web UI moves with it (7300 → 8300), so a second dev server never takes the first's UI port.
  const uiPort = Number(port) + 1000;
  const dev = port === '7233' ? 'commonplace dev' : `commonplace dev --port ${port}${uiPort <= 65535 ? ` --ui-port ${uiPort}` : ''}`;
  return `start a local one there with \`${runnable(dev)}\`, or set TEMPORAL_ADDRESS / --address`;
}

/** A namespace that does not exist fails here, in one line, instead of in whichever call a command makes first. */
async function checkNamespace(service: { describeNamespace(request: { namespace: string }): Promise<unknown> }, settings: ConnectionSettings): Promise<void> {
  try {
    await service.describeNamespace({ namespace: settings.namespace });
  } catch (error) {
    if ((error as { code?: unknown }).code === 5)
      throw new UserError(
        `namespace "${settings.namespace}" does not exist on Temporal at ${settings.address}; name another with --namespace or TEMPORAL_NAMESPACE`,
      );
    throw await connectionFailure(settings, error);
  }
}

/** What both connections take from the settings. */
function connectOptions({ address, tls, apiKey, metadata }: ConnectionSettings): ConnectionOptions & NativeConnectionOptions {
  return { address, ...(tls !== undefined && { tls }), ...(apiKey && { apiKey }), ...(metadata && { metadata }) };
}

/** A step of connecting whose failure is said in one line. */
const orFailure = <T>(settings: ConnectionSettings, step: Promise<T>): Promise<T> =>
  step.catch(async (error: unknown) => {
    throw await connectionFailure(settings, error);
  });

/** A client connection that fails in one line naming the address and what went wrong. */
export async function connectClient(configured = connectionSettings()): Promise<Client> {
  const settings = await withCertificateName(configured);
  if (settings.tls) muteIpServerNameWarning();
  const connection = await orFailure(settings, Connection.connect({ ...connectOptions(settings), connectTimeout: 3000 }));
  await orFailure(settings, connection.workflowService.getSystemInfo({}));
  await checkNamespace(connection.workflowService, settings);
  // With traces on (OTEL_EXPORTER_OTLP_ENDPOINT), a start, signal, query or Update is a span whose context the workflow continues.
  const plugins = (await processTracing('commonplace-cli'))?.plugins;
  // Each run it starts carries the installed workflow code's release (src/release-stamp.ts), and the address this command was given (address-stamp.ts).
  const interceptors = withAddressStamp(releaseStamp(installedRelease), givenAddress() === undefined ? undefined : configured.address);
  return new Client({ connection, namespace: settings.namespace, interceptors, ...(plugins !== undefined && { plugins }) });
}

/** The worker's connection, with the same one-line failures. */
export async function connectWorker(configured = connectionSettings()): Promise<NativeConnection> {
  const settings = await withCertificateName(configured);
  // Loaded here, not with the module: a client command never loads the worker's SDK (its bundler, its native core).
  const { NativeConnection } = await import('@temporalio/worker');
  const connection = await orFailure(settings, NativeConnection.connect(connectOptions(settings)));
  await checkNamespace(connection.workflowService, settings).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  return connection;
}
