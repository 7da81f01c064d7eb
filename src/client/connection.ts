import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { UserError } from './errors.js';

export interface ConnectionSettings {
  address: string;
  namespace: string;
  tls?: NonNullable<ConnectionOptions['tls']>;
  apiKey?: string;
}

/** Connection settings from Temporal's own environment variable names; IPv4 loopback by default, where `commonplace dev` listens. */
export function connectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const settings: ConnectionSettings = {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
  };
  const certPath = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (certPath && keyPath) {
    settings.tls = { clientCertPair: { crt: readFileSync(certPath), key: readFileSync(keyPath) } };
  } else if (env.TEMPORAL_TLS === 'true' || env.TEMPORAL_API_KEY) {
    settings.tls = {};
  }
  if (env.TEMPORAL_API_KEY) settings.apiKey = env.TEMPORAL_API_KEY;
  return settings;
}

function unreachable(settings: ConnectionSettings, error: unknown): UserError {
  const detail = (error as Error).message?.split('\n')[0] ?? String(error);
  return new UserError(`cannot reach Temporal at ${settings.address} (${detail}); start a local one with \`commonplace dev\` or set TEMPORAL_ADDRESS`);
}

/** A client connection that fails in one line naming the address when no server answers. */
export async function connectClient(settings = connectionSettings()): Promise<Client> {
  const options: ConnectionOptions = { address: settings.address, connectTimeout: 3000 };
  if (settings.tls) options.tls = settings.tls;
  if (settings.apiKey) options.apiKey = settings.apiKey;
  try {
    const connection = await Connection.connect(options);
    await connection.workflowService.getSystemInfo({});
    return new Client({ connection, namespace: settings.namespace });
  } catch (error) {
    throw unreachable(settings, error);
  }
}

/** The worker's connection, with the same one-line failure. */
export async function connectWorker(settings = connectionSettings()): Promise<NativeConnection> {
  const options: NativeConnectionOptions = { address: settings.address };
  if (settings.tls) options.tls = settings.tls;
  if (settings.apiKey) options.apiKey = settings.apiKey;
  try {
    return await NativeConnection.connect(options);
  } catch (error) {
    throw unreachable(settings, error);
  }
}
