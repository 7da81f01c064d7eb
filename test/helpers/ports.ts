import { connect, createServer } from 'node:net';

/**
 * The ports `freePort` picks from: below Linux's ephemeral range (32768–60999), where the kernel takes the local
 * port of every outgoing connection and of every `listen(0)`. A port found free there and handed to a server a moment
 * later could be taken in between by any connection the busy test run opens; below it, only another test's pick can.
 */
const LOWEST = 20000;
const HIGHEST = 32000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on IPv4 loopback, outside the kernel's ephemeral range. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${LOWEST} and ${HIGHEST} after 200 tries`);
}

/** Whether something accepts connections on a loopback port. */
export async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
