/** TLS apart from the connection: the handshake probed alone (the SDKs hide its reason), a certificate's server name, one Node warning dropped. */
import type { ConnectionOptions } from '@temporalio/client';
import { isIP } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate } from 'node:tls';

export type TLSConfig = Exclude<NonNullable<ConnectionOptions['tls']>, boolean>;

/** An error's first line: the server's details when it gave them, else the message. */
export function firstLine(error: unknown): string {
  const details = (error as { details?: unknown }).details;
  const message = typeof details === 'string' && details ? details : error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}

/** Where a connection goes and how it secures itself: the part of the connection settings TLS needs. */
export interface TlsTarget {
  address: string;
  tls?: TLSConfig | boolean;
  disableHostVerification?: boolean;
}

let ipServerNameWarningMuted = false;
/** grpc-js hands an IP host to Node as the TLS server name, which warns (DEP0123): noise the operator cannot act on, dropped. */
export function muteIpServerNameWarning(): void {
  if (ipServerNameWarningMuted) return;
  ipServerNameWarningMuted = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((...args: unknown[]) => {
    const options = args[1];
    const code = typeof options === 'object' && options !== null ? (options as { code?: unknown }).code : args[2];
    if (code !== 'DEP0123') emitWarning(...args);
  }) as typeof process.emitWarning;
}

function hostAndPort(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address);
  return match ? { host: match[1]!, port: Number(match[2]) } : { host: address, port: 7233 };
}

type TlsProbe = { outcome: 'no-tcp' } | { outcome: 'refused'; reason: string } | { outcome: 'accepted'; certificate: PeerCertificate };

// The first bytes a gRPC client sends: the HTTP/2 preface and an empty SETTINGS frame. Under TLS 1.3 a server that
// refuses the client's certificate says so only after the handshake, in answer to these.
const http2Preface = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/** The TLS handshake alone (with `verify` false, to read the certificate): the SDKs report a failed one without its reason. */
export async function probeTls(settings: TlsTarget, verify = true, timeoutMs = 3000): Promise<TlsProbe> {
  const { host, port } = hostAndPort(settings.address);
  const tls = typeof settings.tls === 'object' ? settings.tls : {};
  const serverName = tls.serverNameOverride ?? host;
  const socket = tlsConnect({
    host,
    port,
    ...(isIP(serverName) ? {} : { servername: serverName }),
    ALPNProtocols: ['h2'],
    ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
    ...(tls.clientCertPair ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) } : {}),
    rejectUnauthorized: verify,
    checkServerIdentity: (_host, certificate) => checkServerIdentity(serverName, certificate),
  });
  let tcpConnected = false;
  socket.once('connect', () => (tcpConnected = true));
  try {
    return await new Promise<TlsProbe>((resolve) => {
      const accepted = () => resolve({ outcome: 'accepted', certificate: socket.getPeerCertificate() });
      socket.once('secureConnect', () => {
        if (!verify) return accepted();
        socket.write(http2Preface);
        socket.once('data', accepted);
        socket.once('end', accepted);
      });
      socket.once('error', (error: Error & { reason?: string; code?: string }) => {
        if (!tcpConnected) return resolve({ outcome: 'no-tcp' });
        // OpenSSL's message carries its source location; its reason alone says what went wrong.
        const reason =
          error.code === 'ERR_SSL_WRONG_VERSION_NUMBER' ? 'the server answered without TLS (wrong version number)' : (error.reason ?? firstLine(error));
        resolve({ outcome: 'refused', reason });
      });
      socket.setTimeout(timeoutMs, () =>
        resolve(tcpConnected ? { outcome: 'refused', reason: `no TLS handshake within ${timeoutMs / 1000} s` } : { outcome: 'no-tcp' }),
      );
    });
  } finally {
    socket.destroy();
  }
}

/** TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: neither connection can skip the name check, so the name becomes one the certificate carries. */
export async function withCertificateName<S extends TlsTarget>(settings: S): Promise<S> {
  if (!settings.disableHostVerification) return settings;
  const probe = await probeTls(settings, false);
  if (probe.outcome !== 'accepted') return settings; // the connection fails on its own and names why
  const altNames = (probe.certificate.subjectaltname ?? '')
    .split(', ')
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry)?.[1])
    .filter((name) => name !== undefined);
  const commonName = probe.certificate.subject?.CN;
  const name = altNames[0] ?? (Array.isArray(commonName) ? commonName[0] : commonName);
  if (!name) return settings;
  const tls = typeof settings.tls === 'object' ? settings.tls : {};
  // A wildcard name matches any one label in its place.
  return { ...settings, tls: { ...tls, serverNameOverride: name.replace(/^\*\./, 'any.') } };
}
