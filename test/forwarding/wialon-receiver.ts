/**
 * A Wialon IPS receiver written for the tests, independently of the forwarding encoder: a real TCP
 * server that parses logins, `#D#` and `#B#` (checking the 2.0 CRC with its own bitwise CRC-16/ARC),
 * records what it took per unit and answers as the protocol says.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface Received {
  unit: string;
  time: number;
  lat: number | null;
  lng: number | null;
  speed: number | null;
  params: Record<string, string>;
  packet: 'D' | 'B';
  /** The extended message as it came (without CRC). */
  message: string;
}

/** CRC-16/ARC, bit by bit (poly 0x8005 reflected = 0xA001, init 0). */
export function crcArc(text: string): number {
  let crc = 0;
  for (const b of Buffer.from(text, 'utf8')) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

const deg = (v: string, hemi: string) => {
  const n = Number(v);
  const d = Math.floor(n / 100);
  return (d + (n - d * 100) / 60) * (hemi === 'S' || hemi === 'W' ? -1 : 1);
};

function parseMessage(m: string): Omit<Received, 'unit' | 'packet' | 'message'> {
  const f = m.split(';');
  if (f.length < 10) throw new Error(`short message ${m}`);
  const [date, time] = [f[0], f[1]];
  const t = Date.UTC(2000 + Number(date.slice(4, 6)), Number(date.slice(2, 4)) - 1, Number(date.slice(0, 2)), Number(time.slice(0, 2)), Number(time.slice(2, 4)), Number(time.slice(4, 6)));
  const params: Record<string, string> = {};
  if (f[15] && f[15] !== 'NA') for (const p of f[15].split(',')) {
    const [name, type, ...value] = p.split(':');
    params[name] = `${type}:${value.join(':')}`;
  }
  return { time: t, lat: f[2] === 'NA' ? null : deg(f[2], f[3]), lng: f[4] === 'NA' ? null : deg(f[4], f[5]), speed: f[6] === 'NA' ? null : Number(f[6]), params };
}

export class WialonReceiver {
  readonly received: Received[] = [];
  readonly logins: Array<{ version: string; unit: string; password: string }> = [];
  readonly crcErrors: string[] = [];
  /** Answer this to logins (1 = accepted). */
  loginAnswer = '1';
  /** unit -> the number of its `#B#` packet (counted from 1 over all its connections) at which the receiver drops the connection without taking or answering it (once). */
  readonly dropAtPacket = new Map<string, number>();
  private packets = new Map<string, number>();
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  port = 0;

  constructor(readonly version: '2.0' | '1.1') {}

  async start(port = 0): Promise<number> {
    this.server = createServer((s) => this.connection(s));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** Closes the listener and every connection (a receiver going down). */
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }

  units(unit: string): Received[] {
    return this.received.filter((r) => r.unit === unit);
  }

  private connection(socket: Socket) {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let unit = '';
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const m = /^#(L|D|B)#(.*)$/.exec(line);
        if (!m) {
          socket.write('#AD#-1\r\n');
          continue;
        }
        const [, type, body] = m;
        if (type === 'L') {
          const f = body.split(';');
          if (this.version === '2.0') {
            if (crcArc(`${f[0]};${f[1]};${f[2]};`) !== parseInt(f[3], 16)) this.crcErrors.push(line);
            this.logins.push({ version: f[0], unit: f[1], password: f[2] });
            unit = f[1];
          } else {
            this.logins.push({ version: '1.1', unit: f[0], password: f[1] });
            unit = f[0];
          }
          socket.write(`#AL#${this.loginAnswer}\r\n`);
        } else if (type === 'D') {
          let msg = body;
          if (this.version === '2.0') {
            const at = body.lastIndexOf(';');
            if (crcArc(body.slice(0, at + 1)) !== parseInt(body.slice(at + 1), 16)) {
              this.crcErrors.push(line);
              socket.write('#AD#16\r\n');
              continue;
            }
            msg = body.slice(0, at);
          }
          this.received.push({ unit, packet: 'D', message: msg, ...parseMessage(msg) });
          socket.write('#AD#1\r\n');
        } else {
          const n = (this.packets.get(unit) ?? 0) + 1;
          this.packets.set(unit, n);
          if (this.dropAtPacket.get(unit) === n) {
            // mid-pipeline: this packet and whatever was written after it are neither taken nor answered
            this.dropAtPacket.delete(unit);
            socket.destroy();
            return;
          }
          const parts = body.split('|');
          const crc = parts.pop()!;
          if (crcArc(parts.join('|')) !== parseInt(crc, 16)) {
            this.crcErrors.push(line);
            socket.write('#AB#0\r\n');
            continue;
          }
          for (const p of parts) this.received.push({ unit, packet: 'B', message: p, ...parseMessage(p) });
          socket.write(`#AB#${parts.length}\r\n`);
        }
      }
    });
  }
}
