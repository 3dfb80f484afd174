/**
 * Wialon IPS 2.0 and 1.1 over TCP, as a sender (docs/retranslators.md): one connection per tracker,
 * logged in as its (fake) device id with the retranslator's password.
 * - 2.0: `#L#2.0;id;password;CRC`, then the fixes as `#B#` black-box batches of extended messages
 *   (`msg|msg|...|CRC`, answered `#AB#<count>`), a lone fix as `#D#...;CRC` (answered `#AD#1`).
 * - 1.1: `#L#id;password`, then one `#D#` per fix, pipelined (each answered `#AD#<code>`).
 * CRC is CRC-16/ARC over the body (2.0 only). Attributes travel as params `name:type:value`.
 */
import { crc16Ibm } from '../../../protocols/binary.ts';
import { AckSocket, lineFramer } from '../ack-socket.ts';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
/** Most messages per `#B#` packet, and most bytes (receivers bound their line length). */
const BLACK_BOX_MESSAGES = 100;
const BLACK_BOX_BYTES = 48 * 1024;

/** Degrees -> `DDMM.MMMMM` (or `DDDMM.MMMMM`) and the hemisphere letter. */
function nmea(deg: number, width: number, pos: string, neg: string): string {
  const a = Math.abs(deg);
  const d = Math.floor(a);
  const m = (a - d) * 60;
  return `${pad(d, width)}${m.toFixed(5).padStart(8, '0')};${deg < 0 ? neg : pos}`;
}

const int = (v: number | null) => (v === null ? 'NA' : String(Math.round(v)));
/** Text that cannot break the packet's separators. */
const clean = (s: string) => s.replace(/[;,|#:\r\n]/g, ' ');
/** Attributes that travel in fixed fields (or are ours). */
const FIXED = new Set(['input', 'output', 'driverUniqueId', 'archive', 'cells']);

function params(f: ForwardFix): string {
  const out: string[] = [];
  if (f.precision !== null) out.push(`accuracy:2:${f.precision}`);
  for (const [k, v] of Object.entries(f.attrs)) {
    if (FIXED.has(k) || /^adc\d+$/.test(k) || !/^[A-Za-z0-9_.-]{1,64}$/.test(k)) continue;
    if (typeof v === 'number' && Number.isFinite(v)) out.push(`${k}:${Number.isInteger(v) ? 1 : 2}:${v}`);
    else if (typeof v === 'boolean' || typeof v === 'string') out.push(`${k}:3:${clean(String(v))}`);
  }
  // cells as mcc/mnc/lac/cell_id (the first without a suffix, then 1, 2, ...)
  const cells = Array.isArray(f.attrs.cells) ? (f.attrs.cells as Array<Record<string, number>>) : [];
  cells.slice(0, 10).forEach((c, i) => {
    const s = i === 0 ? '' : String(i);
    for (const [name, key] of [['mcc', 'mcc'], ['mnc', 'mnc'], ['lac', 'lac'], ['cell_id', 'cid']] as const) if (Number.isFinite(c[key])) out.push(`${name}${s}:1:${c[key]}`);
  });
  return out.length ? out.join(',') : 'NA';
}

/** The extended data message (the body of `#D#`, one message of `#B#`), without CRC. */
export function dataMessage(f: ForwardFix): string {
  const t = new Date(f.time);
  const date = `${pad(t.getUTCDate())}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCFullYear() % 100)}`;
  const time = `${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}${pad(t.getUTCSeconds())}`;
  const located = f.lat !== null && f.lng !== null;
  const position = located ? `${nmea(f.lat!, 2, 'N', 'S')};${nmea(f.lng!, 3, 'E', 'W')}` : 'NA;NA;NA;NA';
  const adc = Object.keys(f.attrs)
    .filter((k) => /^adc\d+$/.test(k))
    .sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)))
    .map((k) => f.attrs[k]);
  const io = (v: unknown) => (typeof v === 'number' ? String(Math.trunc(v)) : 'NA');
  const ibutton = typeof f.attrs.driverUniqueId === 'string' ? clean(f.attrs.driverUniqueId) : 'NA';
  return [date, time, position, located ? int(f.speed) : 'NA', located ? int(f.course) : 'NA', located ? int(f.alt) : 'NA', int(f.satellites), f.hdop ?? 'NA', io(f.attrs.input), io(f.attrs.output), adc.length ? adc.join(',') : 'NA', ibutton, params(f)].join(';');
}

export function loginPacket(version: '2.0' | '1.1', id: string, password: string): string {
  if (version === '1.1') return `#L#${id};${password || 'NA'}\r\n`;
  const body = `2.0;${id};${password || 'NA'};`;
  return `#L#${body}${hex4(crc16Ibm(Buffer.from(body)))}\r\n`;
}

export function dataPacket(version: '2.0' | '1.1', f: ForwardFix): string {
  const body = dataMessage(f);
  if (version === '1.1') return `#D#${body}\r\n`;
  return `#D#${body};${hex4(crc16Ibm(Buffer.from(`${body};`)))}\r\n`;
}

/** `#B#` packets of the fixes, each with the number of messages it carries (2.0). */
export function blackBoxPackets(fixes: ForwardFix[]): Array<{ packet: string; count: number }> {
  const out: Array<{ packet: string; count: number }> = [];
  let messages: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (!messages.length) return;
    const body = messages.join('|');
    out.push({ packet: `#B#${body}|${hex4(crc16Ibm(Buffer.from(body)))}\r\n`, count: messages.length });
    messages = [];
    bytes = 0;
  };
  for (const f of fixes) {
    const m = dataMessage(f);
    if (messages.length >= BLACK_BOX_MESSAGES || bytes + m.length > BLACK_BOX_BYTES) flush();
    messages.push(m);
    bytes += m.length + 1;
  }
  flush();
  return out;
}

/** `#A<type>#<value>` -> value, or an error naming what came. */
export function answerValue(answer: Buffer, type: string): string {
  const text = answer.toString('latin1');
  const prefix = `#A${type}#`;
  if (!text.startsWith(prefix)) throw new Error(`receiver answered ${JSON.stringify(text.slice(0, 40))} to #${type}#`);
  return text.slice(prefix.length);
}

class WialonSession implements Session {
  /** Messages the receiver answered but refused (a code other than 1, or a short #AB# count). */
  refused = 0;
  constructor(
    private version: '2.0' | '1.1',
    private socket: AckSocket,
  ) {}

  async send(fixes: ForwardFix[]): Promise<void> {
    if (this.version === '2.0' && fixes.length > 1) {
      const packets = blackBoxPackets(fixes);
      const answers = await Promise.all(packets.map((p) => this.socket.request(p.packet)));
      answers.forEach((a, i) => {
        const n = Number(answerValue(a, 'B'));
        if (!Number.isInteger(n)) throw new Error(`bad #AB# answer ${a.toString('latin1')}`);
        this.refused += Math.max(0, packets[i].count - n);
      });
      return;
    }
    const answers = await Promise.all(fixes.map((f) => this.socket.request(dataPacket(this.version, f))));
    for (const a of answers) if (answerValue(a, 'D') !== '1') this.refused++;
  }

  close(): void {
    this.socket.close();
  }
}

function protocol(id: number, version: '2.0' | '1.1'): ForwardProtocol {
  return {
    id,
    name: `Wialon IPS ${version}`,
    hasLogin: false,
    hasPassword: true,
    requiredLogin: false,
    requiredPassword: false,
    // the unit id of the login packet: no separators of the protocol
    fakeDeviceIdPattern: '^[A-Za-z0-9_.-]{1,64}$',
    defaultPort: 20332,
    sessions: 'device',
    ordered: true,
    // one read serves many trackers' connections at once: large, so each connection gets a packet of
    // several messages (one write and one answer per tracker and batch); not much larger, since the
    // retranslators of the engine's thread take turns batch by batch
    batch: 8000,
    async open(target: Target, deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
      const socket = await AckSocket.open(target.address, target.port, lineFramer, opts.timeoutMs);
      try {
        const answer = answerValue(await socket.request(loginPacket(version, deviceId!, target.password)), 'L');
        if (answer !== '1') throw new Error(`login refused (#AL#${answer})`);
      } catch (e) {
        socket.close();
        throw e;
      }
      return new WialonSession(version, socket);
    },
  };
}

export const wialonIps20 = protocol(1, '2.0');
export const wialonIps11 = protocol(2, '1.1');
