/**
 * A proxy on 127.0.0.1 in front of an S3-compatible server that fails chosen
 * requests the way S3 and networks do: AccessDenied (403, S3's XML error),
 * SlowDown (503, throttling), a dropped connection, or no answer at all
 * (hang: the caller is then killed by the test). Every request is logged.
 */
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'pass' | 'deny' | 'throttle' | 'drop' | 'hang';

export interface SeenRequest {
  method: string;
  /** The key, bucket first, without the query: "bucket/layerlab/history.sqlite.current". */
  path: string;
  fault: Fault;
}

export interface FaultProxy {
  endpoint: string;
  /** Decides each request's fate; 'pass' for all by default. */
  rule: (req: { method: string; path: string }) => Fault;
  seen: SeenRequest[];
  /** Called when a request is held unanswered. */
  onHang: () => void;
  close(): Promise<void>;
}

const s3Error = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>FAULTPROXY0001</RequestId></Error>`;

function answer(res: ServerResponse, status: number, code: string, message: string): void {
  const body = s3Error(code, message);
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  const held: IncomingMessage[] = [];
  const proxy: FaultProxy = {
    endpoint: '',
    rule: () => 'pass',
    seen: [],
    onHang: () => {},
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').replace(/^\//, '');
    const fault = proxy.rule({ method, path });
    proxy.seen.push({ method, path, fault });
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      held.push(req);
      proxy.onHang();
      return;
    }
    if (fault === 'deny' || fault === 'throttle') {
      req.resume();
      req.on('end', () =>
        fault === 'deny'
          ? answer(res, 403, 'AccessDenied', 'Access Denied')
          : answer(res, 503, 'SlowDown', 'Please reduce your request rate.'),
      );
      return;
    }
    // The Host header is kept: the client signed it.
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const req of held) req.socket.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
