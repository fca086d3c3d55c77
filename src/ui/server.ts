// `wbsync ui`'s own listener: the console under /ui/, `/` sends a browser there; nothing else.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WbsyncError } from '../domain/errors.js';
import type { WebConsole } from './console.js';
import type { TlsMaterial } from './secrets.js';
import { SECURITY_HEADERS } from './security.js';

export interface ConsoleServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function startConsoleServer(host: string, port: number, ui: WebConsole, tls?: TlsMaterial): Promise<ConsoleServer> {
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === ui.base || path.startsWith(`${ui.base}/`)) return ui.handle(req, res);
    if (!ui.admit(req, res)) return;
    if (path === '/') {
      res.writeHead(303, { ...SECURITY_HEADERS, location: `${ui.base}/`, 'content-length': 0 });
      res.end();
      return;
    }
    res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end(`not found: the console is at ${ui.base}/\n`);
  };
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handler) : createServer(handler);
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new WbsyncError('config', `ui: cannot listen on ${host}:${port} (${e.code ?? e.message})`, { hint: e.code === 'EADDRINUSE' ? 'another process uses that port: give --listen HOST:PORT' : 'give --listen with a local address, e.g. 127.0.0.1:9465', cause: e })),
    );
    server.listen(port, host, () => {
      const a = server.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve({
        url: `${tls ? 'https' : 'http'}://${h}:${a.port}${ui.base}/`,
        port: a.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
