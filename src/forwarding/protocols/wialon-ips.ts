/**
 * Wialon IPS 2.0 and 1.1 over TCP, as a sender (docs/retranslators.md): one connection per tracker,
 * logged in as its (fake) device id with the retranslator's password.
 * - 2.0: `#L#2.0;id;password;CRC`, then the fixes as `#B#` black-box batches of extended messages
 *   (`msg|msg|...|CRC`, answered `#AB#<count>`), a lone fix as `#D#...;CRC` (answered `#AD#1`).
 * - 1.1: `#L#id;password`, then one `#D#` per fix, pipelined (each answered `#AD#<code>`).
 * CRC is CRC-16/ARC over the body (2.0 only). Attributes travel as params `name:type:value`.
 */
import { crc16Ibm } from '../../../protocols/binary.ts';
import { SecondText } from '../../core/time.ts';
import { AckSocket, lineFramer } from '../ack-socket.ts';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
/** Most messages per `#B#` packet, and most bytes (receivers bound their line length). */
const BLACK_BOX_MESSAGES = 100;
const BLACK_BOX_BYTES = 48 * 1024;

/** Degrees -> `DDMM.MMMMM` (or `DDDMM.MMMMM`) and the hemisphere letter (integer arithmetic: no `toFixed`). */
function nmea(deg: number, width: number, pos: string, neg: string): string {
  const a = Math.abs(deg);
  let d = Math.floor(a);
  // minutes in units of 1e-5, rounded; 60.00000 carries into the degrees
  let m = Math.round((a - d) * 6_000_000);
  if (m >= 6_000_000) {
    d++;
    m -= 6_000_000;
  }
  const whole = Math.floor(m / 100_000);
  return `${pad(d, width)}${pad2(whole)}.${pad(m - whole * 100_000, 5)};${deg < 0 ? neg : pos}`;
}

const int = (v: number | null) => (v === null ? 'NA' : String(Math.round(v)));
/** Text that cannot break the packet's separators. */
const clean = (s: string) => s.replace(/[;,|#:\r\n]/g, ' ');
/** Attributes that travel in fixed fields (or are ours). */
const FIXED = new Set(['input', 'output', 'driverUniqueId', 'archive', 'cells']);
const PARAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const ADC = /^adc\d+$/;

/** How an attribute travels: 0 not at all (a fixed field, ours, or not a param name), 1 as a param, 2 in the analog inputs. */
type Kind = 0 | 1 | 2;
const kindOf = (k: string): Kind => (FIXED.has(k) ? 0 : ADC.test(k) ? 2 : PARAM_NAME.test(k) ? 1 : 0);

/** Entries a memo of the encoder holds before it starts over. */
const MEMO = 4096;

/**
 * Encodes messages with two memos: the kinds of the attribute names met (the fixes of a fleet share a
 * few dozen names) and the date and time of the seconds met (the trackers of a batch share seconds).
 */
export class MessageEncoder {
  private kinds = new Map<string, Kind>();
  /** `DDMMYY;HHMMSS` in UTC. */
  private dateTime = new SecondText((ms) => {
    const t = new Date(ms);
    return `${pad2(t.getUTCDate())}${pad2(t.getUTCMonth() + 1)}${pad2(t.getUTCFullYear() % 100)};${pad2(t.getUTCHours())}${pad2(t.getUTCMinutes())}${pad2(t.getUTCSeconds())}`;
  }, MEMO);

  private kind(k: string): Kind {
    let v = this.kinds.get(k);
    if (v === undefined) {
      if (this.kinds.size >= MEMO) this.kinds.clear();
      this.kinds.set(k, (v = kindOf(k)));
    }
    return v;
  }

  /** The extended data message (the body of `#D#`, one message of `#B#`), without CRC. */
  message(f: ForwardFix): string {
    const attrs = f.attrs;
    // params: accuracy, the attributes in their order, then the cells
    let params = f.precision !== null ? `accuracy:2:${f.precision}` : '';
    let adc: Array<[number, unknown]> | null = null;
    for (const k in attrs) {
      const kind = this.kind(k);
      if (kind === 0) continue;
      const v = attrs[k];
      if (kind === 2) {
        (adc ??= []).push([Number(k.slice(3)), v]);
        continue;
      }
      let p: string;
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) continue;
        p = `${k}:${Number.isInteger(v) ? 1 : 2}:${v}`;
      } else if (typeof v === 'boolean') p = `${k}:3:${v}`;
      else if (typeof v === 'string') p = `${k}:3:${clean(v)}`;
      else continue;
      params = params ? `${params},${p}` : p;
    }
    if (Array.isArray(attrs.cells)) params = cellParams(attrs.cells as Array<Record<string, number>>, params);
    const located = f.lat !== null && f.lng !== null;
    const position = located ? `${nmea(f.lat!, 2, 'N', 'S')};${nmea(f.lng!, 3, 'E', 'W')};${int(f.speed)};${int(f.course)};${int(f.alt)}` : 'NA;NA;NA;NA;NA;NA;NA';
    const adcText = adc ? adc.sort((a, b) => a[0] - b[0]).map((e) => e[1]).join(',') : 'NA';
    const ibutton = typeof attrs.driverUniqueId === 'string' ? clean(attrs.driverUniqueId) : 'NA';
    return `${this.dateTime.of(f.time)};${position};${int(f.satellites)};${f.hdop ?? 'NA'};${io(attrs.input)};${io(attrs.output)};${adcText};${ibutton};${params || 'NA'}`;
  }
}

const io = (v: unknown) => (typeof v === 'number' ? String(Math.trunc(v)) : 'NA');

/** Cells as mcc/mnc/lac/cell_id params (the first without a suffix, then 1, 2, ...). */
function cellParams(cells: Array<Record<string, number>>, params: string): string {
  let out = params;
  cells.slice(0, 10).forEach((c, i) => {
    const s = i === 0 ? '' : String(i);
    for (const [name, key] of [['mcc', 'mcc'], ['mnc', 'mnc'], ['lac', 'lac'], ['cell_id', 'cid']] as const) if (Number.isFinite(c[key])) out = `${out ? `${out},` : ''}${name}${s}:1:${c[key]}`;
  });
  return out;
}

/** The extended data message of one fix (see `MessageEncoder.message`). */
export function dataMessage(f: ForwardFix): string {
  return new MessageEncoder().message(f);
}

export function loginPacket(version: '2.0' | '1.1', id: string, password: string): string {
  if (version === '1.1') return `#L#${id};${password || 'NA'}\r\n`;
  const body = `2.0;${id};${password || 'NA'};`;
  return `#L#${body}${hex4(crc16Ibm(Buffer.from(body)))}\r\n`;
}

/** `<prefix><body><sep>XXXX\r\n` as bytes, XXXX the CRC of the bytes of `<body><sep>` (`;`) or of `<body>` alone (`|`): one conversion to bytes for the CRC and the socket. */
function withCrc(prefix: string, body: string, sep: ';' | '|'): Buffer {
  const b = Buffer.from(`${prefix}${body}${sep}0000\r\n`);
  const end = b.length - 6;
  b.write(hex4(crc16Ibm(b, prefix.length, sep === ';' ? end : end - 1)), end, 'latin1');
  return b;
}

export function dataPacket(version: '2.0' | '1.1', f: ForwardFix, encoder = new MessageEncoder()): Buffer | string {
  const body = encoder.message(f);
  if (version === '1.1') return `#D#${body}\r\n`;
  return withCrc('#D#', body, ';');
}

/** `#B#` packets of the fixes, each with the number of messages it carries (2.0). */
export function blackBoxPackets(fixes: ForwardFix[], encoder = new MessageEncoder()): Array<{ packet: Buffer; count: number }> {
  const out: Array<{ packet: Buffer; count: number }> = [];
  let body = '';
  let count = 0;
  const flush = () => {
    if (!count) return;
    out.push({ packet: withCrc('#B#', body, '|'), count });
    body = '';
    count = 0;
  };
  for (const f of fixes) {
    const m = encoder.message(f);
    if (count >= BLACK_BOX_MESSAGES || body.length + m.length + 1 > BLACK_BOX_BYTES) flush();
    body = count ? `${body}|${m}` : m;
    count++;
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
    /** Shared by the protocol's sessions (its memos serve every tracker). */
    private encoder: MessageEncoder,
  ) {}

  async send(fixes: ForwardFix[]): Promise<void> {
    if (this.version === '2.0' && fixes.length > 1) {
      const packets = blackBoxPackets(fixes, this.encoder);
      const answers = await Promise.all(packets.map((p) => this.socket.request(p.packet)));
      answers.forEach((a, i) => {
        const n = Number(answerValue(a, 'B'));
        if (!Number.isInteger(n)) throw new Error(`bad #AB# answer ${a.toString('latin1')}`);
        this.refused += Math.max(0, packets[i].count - n);
      });
      return;
    }
    const answers = await Promise.all(fixes.map((f) => this.socket.request(dataPacket(this.version, f, this.encoder))));
    for (const a of answers) if (answerValue(a, 'D') !== '1') this.refused++;
  }

  close(): void {
    this.socket.close();
  }
}

function protocol(id: number, version: '2.0' | '1.1'): ForwardProtocol {
  // one encoder for every session of the protocol (the forwarding thread encodes one batch at a time)
  const encoder = new MessageEncoder();
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
    batch: 2000,
    async open(target: Target, deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
      const socket = await AckSocket.open(target.address, target.port, lineFramer, opts.timeoutMs);
      try {
        const answer = answerValue(await socket.request(loginPacket(version, deviceId!, target.password)), 'L');
        if (answer !== '1') throw new Error(`login refused (#AL#${answer})`);
      } catch (e) {
        socket.close();
        throw e;
      }
      return new WialonSession(version, socket, encoder);
    },
  };
}

export const wialonIps20 = protocol(1, '2.0');
export const wialonIps11 = protocol(2, '1.1');
