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
import { asciiBytes, TextBytes } from './text-bytes.ts';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
/** Most messages per `#B#` packet, and most characters (receivers bound their line length). */
const BLACK_BOX_MESSAGES = 100;
const BLACK_BOX_BYTES = 48 * 1024;
const DAY = 86_400_000;
const [SEMI, PIPE, DOT, CR, LF, SPACE] = [0x3b, 0x7c, 0x2e, 0x0d, 0x0a, 0x20];
const NA = asciiBytes('NA');
const NO_POSITION = asciiBytes('NA;NA;NA;NA;NA;NA;NA');
/** The date and time of an instant `Date` cannot hold (as the fields of an invalid `Date` read). */
const NO_TIME = asciiBytes('NaNNaNNaN;NaNNaNNaN');

/** Degrees -> `DDMM.MMMMM;N` (width 2) or `DDDMM.MMMMM;E` (3): minutes in units of 1e-5, rounded, in integer arithmetic. */
function nmeaTo(o: TextBytes, deg: number, width: number, pos: number, neg: number): void {
  const a = Math.abs(deg);
  let d = Math.floor(a);
  let m = Math.round((a - d) * 6_000_000);
  // 60.00000 minutes carry into the degrees
  if (m >= 6_000_000) {
    d++;
    m -= 6_000_000;
  }
  const whole = Math.floor(m / 100_000);
  const hemisphere = deg < 0 ? neg : pos;
  // what no coordinate is (not finite, huge) as the text of the same arithmetic
  if (!(a < 1e9)) return o.ascii(`${pad(d, width)}${pad2(whole)}.${pad(m - whole * 100_000, 5)};${String.fromCharCode(hemisphere)}`);
  o.digits(d, width);
  o.digits(whole, 2);
  o.byte(DOT);
  o.digits(m - whole * 100_000, 5);
  o.byte(SEMI);
  o.byte(hemisphere);
}

/** Attributes that travel in fixed fields (or are ours). */
const FIXED = new Set(['input', 'output', 'driverUniqueId', 'archive', 'cells']);
const PARAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const ADC = /^adc\d+$/;

/** How an attribute travels: 0 not at all (a fixed field, ours, or not a param name), 1 as a param, 2 in the analog inputs. */
type Kind = 0 | 1 | 2;
const kindOf = (k: string): Kind => (FIXED.has(k) ? 0 : ADC.test(k) ? 2 : PARAM_NAME.test(k) ? 1 : 0);

/** Entries a memo of the encoder holds before it starts over. */
const MEMO = 4096;
/** The GSM cell params: the name sent, the member of a cell. */
const CELL_PARAMS = [
  ['mcc', 'mcc'],
  ['mnc', 'mnc'],
  ['lac', 'lac'],
  ['cell_id', 'cid'],
] as const;

/**
 * Writes messages and packets straight into bytes (`TextBytes`), with two memos: the kinds of the
 * attribute names met (the fixes of a fleet share a few dozen names) and the `DDMMYY;` of the days met.
 */
export class MessageEncoder {
  private kinds = new Map<string, Kind>();
  private days = new Map<number, Uint8Array>();
  /** Analog inputs of the message being written (reused). */
  private adc: Array<[number, unknown]> = [];
  readonly out = new TextBytes();

  private kind(k: string): Kind {
    let v = this.kinds.get(k);
    if (v === undefined) {
      if (this.kinds.size >= MEMO) this.kinds.clear();
      this.kinds.set(k, (v = kindOf(k)));
    }
    return v;
  }

  /** `DDMMYY;` of the UTC day. */
  private date(day: number): Uint8Array {
    let v = this.days.get(day);
    if (v === undefined) {
      const t = new Date(day * DAY);
      if (this.days.size >= MEMO) this.days.clear();
      this.days.set(day, (v = asciiBytes(`${pad2(t.getUTCDate())}${pad2(t.getUTCMonth() + 1)}${pad2(t.getUTCFullYear() % 100)};`)));
    }
    return v;
  }

  /** `DDMMYY;HHMMSS` in UTC (second precision). */
  private dateTime(ms: number): void {
    const o = this.out;
    if (!(Math.abs(ms) <= 8.64e15)) return o.bytes(NO_TIME);
    const day = Math.floor(ms / DAY);
    o.bytes(this.date(day));
    const s = Math.floor((ms - day * DAY) / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s - h * 3600) / 60);
    o.digits(h, 2);
    o.digits(m, 2);
    o.digits(s - h * 3600 - m * 60, 2);
  }

  /** An integer field (rounded), `NA` when unknown. */
  private rounded(v: number | null): void {
    if (v === null) this.out.bytes(NA);
    else this.out.num(Math.round(v));
  }

  /** The inputs or outputs mask, `NA` when not a number. */
  private mask(v: unknown): void {
    if (typeof v === 'number') this.out.num(Math.trunc(v));
    else this.out.bytes(NA);
  }

  /** Text that cannot break the packet: the separators `; , | # :` and line ends become spaces (ASCII bytes never occur inside a UTF-8 sequence). Answers the bytes beyond its length. */
  private cleanText(s: string): number {
    const o = this.out;
    const from = o.length;
    const extra = o.utf8(s);
    const b = o.buf;
    for (let i = o.start + from; i < o.pos; i++) {
      const c = b[i];
      if (c === 0x3b || c === 0x2c || c === 0x7c || c === 0x23 || c === 0x3a || c === CR || c === LF) b[i] = SPACE;
    }
    return extra;
  }

  /**
   * Writes the extended data message of one fix (the body of `#D#`, one message of `#B#`) without CRC:
   * `date;time;lat1;lat2;lon1;lon2;speed;course;alt;sats;hdop;inputs;outputs;adc;ibutton;params`.
   * Answers the bytes written beyond the message's length in characters (non-ASCII text).
   */
  message(f: ForwardFix): number {
    const o = this.out;
    const attrs = f.attrs;
    let extra = 0;
    this.dateTime(f.time);
    o.byte(SEMI);
    if (f.lat !== null && f.lng !== null) {
      nmeaTo(o, f.lat, 2, 0x4e, 0x53); // N, S
      o.byte(SEMI);
      nmeaTo(o, f.lng, 3, 0x45, 0x57); // E, W
      o.byte(SEMI);
      this.rounded(f.speed);
      o.byte(SEMI);
      this.rounded(f.course);
      o.byte(SEMI);
      this.rounded(f.alt);
    } else o.bytes(NO_POSITION);
    o.byte(SEMI);
    this.rounded(f.satellites);
    o.byte(SEMI);
    const hdop = f.hdop;
    if (hdop === null || hdop === undefined) o.bytes(NA);
    else o.num(hdop);
    o.byte(SEMI);
    this.mask(attrs.input);
    o.byte(SEMI);
    this.mask(attrs.output);
    o.byte(SEMI);
    // params are written after the analog inputs, which are collected on the way
    const adc = this.adc;
    for (const k in attrs) if (this.kind(k) === 2) adc.push([Number(k.slice(3)), attrs[k]]);
    if (adc.length) {
      // in input order, as `join(',')` writes them (null and undefined as nothing)
      adc.sort((a, b) => a[0] - b[0]);
      for (let i = 0; i < adc.length; i++) {
        if (i) o.byte(0x2c);
        const v = adc[i][1];
        if (typeof v === 'number') o.num(v);
        else if (v !== null && v !== undefined) extra += o.utf8(String(v));
      }
      adc.length = 0;
    } else o.bytes(NA);
    o.byte(SEMI);
    const ibutton = attrs.driverUniqueId;
    if (typeof ibutton === 'string') extra += this.cleanText(ibutton);
    else o.bytes(NA);
    o.byte(SEMI);
    return extra + this.params(f, attrs);
  }

  /** params: accuracy, the attributes in their order, then the cells; `NA` when none. */
  private params(f: ForwardFix, attrs: Record<string, unknown>): number {
    const o = this.out;
    let extra = 0;
    const empty = o.length;
    if (f.precision !== null) {
      o.ascii('accuracy:2:');
      o.num(f.precision);
    }
    for (const k in attrs) {
      if (this.kind(k) !== 1) continue;
      const v = attrs[k];
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) continue;
        if (o.length > empty) o.byte(0x2c);
        o.ascii(k);
        o.ascii(Number.isInteger(v) ? ':1:' : ':2:');
        o.num(v);
      } else if (typeof v === 'boolean') {
        if (o.length > empty) o.byte(0x2c);
        o.ascii(k);
        o.ascii(v ? ':3:true' : ':3:false');
      } else if (typeof v === 'string') {
        if (o.length > empty) o.byte(0x2c);
        o.ascii(k);
        o.ascii(':3:');
        extra += this.cleanText(v);
      }
    }
    const cells = attrs.cells;
    if (Array.isArray(cells)) {
      // the first cell's params without a suffix, then 1, 2, ...
      const n = Math.min(cells.length, 10);
      for (let i = 0; i < n; i++) {
        const c = cells[i] as Record<string, unknown> | null;
        // Not a cell (a decoder's null): skipped, never an encoding error that would hold the tracker's
        // forwarding at this fix for good.
        if (c === null || typeof c !== 'object') continue;
        for (const [name, key] of CELL_PARAMS) {
          const v = c[key];
          if (typeof v !== 'number' || !Number.isFinite(v)) continue;
          if (o.length > empty) o.byte(0x2c);
          o.ascii(name);
          if (i) o.int(i);
          o.ascii(':1:');
          o.num(v);
        }
      }
    }
    if (o.length === empty) o.bytes(NA);
    return extra;
  }

  /** Ends a packet whose body starts at `body` (relative to the piece): `<sep>XXXX\r\n`, the CRC of the body, with the `;` included (`#D#`) or without the `|` (`#B#`). */
  private crcLine(body: number, sep: number): void {
    const o = this.out;
    o.byte(sep);
    o.hex4(crc16Ibm(o.buf, o.start + body, sep === SEMI ? o.pos : o.pos - 1));
    o.byte(CR);
    o.byte(LF);
  }

  /**
   * The fixes as `#B#` packets of at most 100 messages and 48 KiB (in characters), all in one piece of
   * bytes, with the number of messages each packet carries (2.0).
   */
  blackBox(fixes: ForwardFix[]): Packets {
    const o = this.out;
    o.begin();
    const counts: number[] = [];
    let body = 0;
    let count = 0;
    /** The packet's body in characters so far. */
    let chars = 0;
    for (let i = 0; i < fixes.length; i++) {
      if (count >= BLACK_BOX_MESSAGES) {
        this.crcLine(body, PIPE);
        counts.push(count);
        count = 0;
      }
      if (!count) {
        o.ascii('#B#');
        body = o.length;
        chars = 0;
      }
      const sep = o.length;
      if (count) o.byte(PIPE);
      const at = o.length;
      // the size limit counts characters, as the packets were measured when they were strings
      const extra = this.message(fixes[i]);
      const length = o.length - at - extra;
      if (count && chars + length + 1 > BLACK_BOX_BYTES) {
        // the message starts a packet of its own and is written again there (once per 48 KiB at most)
        o.pos = o.start + sep;
        this.crcLine(body, PIPE);
        counts.push(count);
        count = 0;
        i--;
        continue;
      }
      chars += count ? length + 1 : length;
      count++;
    }
    if (count) {
      this.crcLine(body, PIPE);
      counts.push(count);
    }
    return { bytes: o.take(), counts };
  }

  /** A `#D#` packet per fix, all in one piece: `#D#msg;XXXX\r\n` (2.0, the CRC over `msg;`) or `#D#msg\r\n` (1.1). */
  dataPackets(version: '2.0' | '1.1', fixes: ForwardFix[]): Packets {
    const o = this.out;
    o.begin();
    for (const f of fixes) {
      o.ascii('#D#');
      const body = o.length;
      this.message(f);
      if (version === '2.0') this.crcLine(body, SEMI);
      else {
        o.byte(CR);
        o.byte(LF);
      }
    }
    return { bytes: o.take(), counts: fixes.map(() => 1) };
  }
}

/** Packets in one piece of bytes, and the messages each carries. */
export interface Packets {
  bytes: Buffer;
  counts: number[];
}

export function loginPacket(version: '2.0' | '1.1', id: string, password: string): string {
  if (version === '1.1') return `#L#${id};${password || 'NA'}\r\n`;
  const body = `2.0;${id};${password || 'NA'};`;
  return `#L#${body}${hex4(crc16Ibm(Buffer.from(body)))}\r\n`;
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
    // a tracker's packets of a batch leave in one write (one connection per tracker: a write each
    // per batch is the most a caught-up retranslator can do)
    if (this.version === '2.0' && fixes.length > 1) {
      const packets = this.encoder.blackBox(fixes);
      const answers = await this.socket.send(packets.bytes, packets.counts.length);
      answers.forEach((a, i) => {
        const n = Number(answerValue(a, 'B'));
        if (!Number.isInteger(n)) throw new Error(`bad #AB# answer ${a.toString('latin1')}`);
        this.refused += Math.max(0, packets.counts[i] - n);
      });
      return;
    }
    const answers = await this.socket.send(this.encoder.dataPackets(this.version, fixes).bytes, fixes.length);
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
