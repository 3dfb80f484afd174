/** HTTP listener of a protocol whose devices report by HTTP requests (OsmAnd and phone apps). */
import http from 'node:http';
import { DecodeError, type Protocol } from '../../protocols/types.ts';
import { DeviceSession, refusalReason, type GatewayCore } from './core.ts';

export function listenHttp(core: GatewayCore, protocol: Protocol, host: string, port: number): Promise<http.Server> {
  const counters = core.counters(protocol.name);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > protocol.maxFrameSize) {
        if (!tooBig) {
          counters.decodeErrors++;
          new DeviceSession(core, protocol, 'http', req.socket.remoteAddress ?? '?').refused(`request body over ${protocol.maxFrameSize} bytes`);
        }
        tooBig = true;
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (tooBig) return;
      counters.frames++;
      const session = new DeviceSession(core, protocol, 'http', req.socket.remoteAddress ?? '?');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      let result;
      try {
        result = protocol.decodeHttp!({ method: req.method ?? 'GET', uri: req.url ?? '/', headers, body: Buffer.concat(chunks) }, session.context());
      } catch (e) {
        core.stats.malformed++;
        counters.decodeErrors++;
        session.refused(refusalReason(e));
        res.writeHead(400).end(e instanceof DecodeError ? e.message : 'bad request');
        return;
      }
      const h = session.handle(result);
      if (h.refused) {
        res.writeHead(h.refused.reason === 'unknown' ? 404 : 403).end(h.refused.reason === 'unknown' ? 'unknown device' : 'device blocked');
        return;
      }
      h.committed.then(
        () => {
          counters.acknowledged += h.records;
          counters.framesAcknowledged++;
          res.writeHead(result.status ?? 200).end(result.body ?? '');
        },
        () => {
          core.stats.storeFailures++;
          res.writeHead(503).end('store unavailable, retry');
        },
      );
    });
    req.on('error', () => undefined);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
