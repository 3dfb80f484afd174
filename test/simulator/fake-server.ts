/**
 * A tiny tracker server for simulator tests, on 127.0.0.1: frames and decodes with our protocol
 * modules and answers with the decoder's reply bytes, unless a policy says to hold the answer back,
 * refuse, stay silent or drop the connection. It logs what it received and what it acknowledged.
 */
import http from 'node:http';
import net from 'node:net';
import type { DecodeContext, DeviceRecord, Protocol } from '../../protocols/types.ts';

export type Action = 'ack' | 'hold' | 'refuse' | 'silent' | 'drop';

export interface FakeServer {
  port: number;
  /** Record times per device, in arrival order, resends included. */
  received: Map<string, number[]>;
  /** Record times per device whose answer was written. */
  acked: Map<string, number[]>;
  /** Records per data frame, in arrival order. */
  frames: number[];
  connections: number;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** Per data frame (frame numbers count from 1 per connection). */
  policy?(e: { deviceId: string; frameNo: number; total: number }): Action;
  holdMs?: number;
  /** Answer the login at all (false: refuse it the protocol's way). */
  acceptLogin?: boolean;
}

function log(map: Map<string, number[]>, id: string, recs: DeviceRecord[]) {
  const list = map.get(id) ?? [];
  for (const r of recs) list.push(r.time!);
  map.set(id, list);
}

/** The refusal a protocol's device understands. */
function refusal(protocol: string, records: number): Buffer {
  if (protocol === 'teltonika') return Buffer.alloc(4); // count 0
  if (protocol === 'wialon') return Buffer.from(records > 1 ? '#AB#0\r\n' : '#AD#16\r\n');
  throw new Error(`no refusal for ${protocol}`);
}

export async function startFakeServer(protocol: Protocol, opts: FakeOptions = {}): Promise<FakeServer> {
  const received = new Map<string, number[]>();
  const acked = new Map<string, number[]>();
  const frames: number[] = [];
  const sockets = new Set<net.Socket>();
  let total = 0;
  const state = { connections: 0 };

  const decide = (deviceId: string, frameNo: number) => (opts.policy ? opts.policy({ deviceId, frameNo, total: ++total }) : 'ack');

  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const framer = protocol.createFramer!();
    const ctx: DecodeContext = { now: Date.now(), transport: 'tcp', config: {}, session: {} };
    let buf = Buffer.alloc(0);
    let frameNo = 0;
    let queue = Promise.resolve(); // answers leave in order, even when one is held back
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (let cut = framer.next(buf); cut; cut = framer.next(buf)) {
        buf = buf.subarray(cut.consumed);
        ctx.now = Date.now();
        const r = protocol.decode!(cut.frame, ctx);
        if (r.deviceId && !ctx.deviceId) {
          if (opts.acceptLogin === false) {
            if (protocol.name === 'teltonika') socket.end(Buffer.from([0]));
            else socket.destroy();
            return;
          }
          ctx.deviceId = r.deviceId;
        }
        const recs = r.records ?? [];
        if (!recs.length) {
          if (r.reply) queue = queue.then(() => void socket.write(r.reply!));
          continue;
        }
        const id = ctx.deviceId!;
        log(received, id, recs);
        frames.push(recs.length);
        const action = decide(id, ++frameNo);
        if (action === 'drop') return socket.destroy();
        if (action === 'silent') continue;
        const reply = action === 'refuse' ? refusal(protocol.name, recs.length) : r.reply!;
        const wait = action === 'hold' ? opts.holdMs ?? 300 : 0;
        queue = queue.then(async () => {
          if (wait) await new Promise((res) => setTimeout(res, wait));
          if (socket.destroyed) return;
          if (action !== 'refuse') log(acked, id, recs);
          socket.write(reply);
        });
      }
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    acked,
    frames,
    get connections() {
      return state.connections;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((res) => server.close(() => res()));
    },
  };
}

/** The same for HTTP protocols (OsmAnd): a 200 once "stored", or a dropped connection. */
export async function startFakeHttpServer(protocol: Protocol, opts: FakeOptions = {}): Promise<FakeServer> {
  const received = new Map<string, number[]>();
  const acked = new Map<string, number[]>();
  const frames: number[] = [];
  let total = 0;
  const state = { connections: 0 };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const ctx: DecodeContext = { now: Date.now(), transport: 'http', config: {}, session: {} };
    const r = protocol.decodeHttp!({ method: req.method!, uri: req.url!, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }, ctx);
    const recs = r.records ?? [];
    log(received, r.deviceId!, recs);
    frames.push(recs.length);
    const action = opts.policy ? opts.policy({ deviceId: r.deviceId!, frameNo: 0, total: ++total }) : 'ack';
    if (action === 'drop') return req.socket.destroy();
    if (action === 'silent') return;
    if (action === 'hold') await new Promise((done) => setTimeout(done, opts.holdMs ?? 300));
    if (action !== 'refuse') log(acked, r.deviceId!, recs);
    res.writeHead(action === 'refuse' ? 503 : r.status ?? 200).end();
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    acked,
    frames,
    get connections() {
      return state.connections;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((res) => server.close(() => res()));
    },
  };
}
