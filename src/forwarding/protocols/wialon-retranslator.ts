/**
 * The Wialon Retranslator binary format (v1.0) as a sender (docs/retranslators.md): one TCP connection
 * per retranslator carries every tracker; each fix is one packet, answered by the byte 0x11; packets
 * are pipelined. A packet: its size (4 bytes little-endian, not counting itself), the controller id
 * (the device or fake id) as zero-terminated text, the fix time (Unix seconds) and the message flags,
 * then blocks. Numbers are big-endian except the size and doubles (little-endian). Each block:
 * 0x0BBB, its size (from the next byte to its end), hidden flag, value type (1 text, 2 binary,
 * 3 int32, 4 double, 5 int64), zero-terminated name, value. `posinfo` (binary) carries the position;
 * `avl_inputs`, `avl_outputs`, `avl_driver` the fixed fields; every other attribute is a block of its own.
 */
import { AckSocket, type AnswerFramer } from '../ack-socket.ts';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';

const ACK = 0x11;
const TYPE = { text: 1, binary: 2, int: 3, double: 4, long: 5 } as const;
const FLAG = { position: 0x01, inputs: 0x02, outputs: 0x04, alarm: 0x10, driver: 0x20 } as const;
/** Attributes that travel in blocks of their own (or are ours). */
const FIXED = new Set(['input', 'output', 'driverUniqueId', 'archive', 'cells']);
/** Block names: at most 38 bytes, no separators. */
const NAME = /^[A-Za-z0-9_.-]{1,38}$/;

function block(name: string, type: number, value: Buffer, hidden = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x0bbb, 0);
  head.writeUInt32BE(2 + name.length + 1 + value.length, 2);
  head[6] = hidden ? 1 : 0;
  head[7] = type;
  return Buffer.concat([head, Buffer.from(`${name}\0`, 'latin1'), value]);
}

const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v, 0);
  return b;
};
const double = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v, 0);
  return b;
};
const text = (v: string) => Buffer.from(`${v.replace(/\0/g, ' ')}\0`, 'utf8');

/** A number as int32, int64 or double, whichever holds it. */
function numberBlock(name: string, v: number): Buffer {
  if (!Number.isInteger(v)) return block(name, TYPE.double, double(v));
  if (v >= -0x80000000 && v <= 0x7fffffff) return block(name, TYPE.int, int32(v));
  if (Number.isSafeInteger(v)) {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(v), 0);
    return block(name, TYPE.long, b);
  }
  return block(name, TYPE.double, double(v));
}

function posinfo(f: ForwardFix): Buffer {
  const v = Buffer.alloc(29);
  v.writeDoubleLE(f.lng!, 0);
  v.writeDoubleLE(f.lat!, 8);
  v.writeDoubleLE(f.alt ?? 0, 16);
  v.writeUInt16BE(Math.min(0xffff, Math.max(0, Math.round(f.speed ?? 0))), 24);
  v.writeUInt16BE(Math.round(f.course ?? 0) % 360, 26);
  v[28] = Math.min(255, Math.max(0, Math.round(f.satellites ?? 0)));
  return block('posinfo', TYPE.binary, v, true);
}

/** One fix as one packet. */
export function retranslatorPacket(f: ForwardFix): Buffer {
  const blocks: Buffer[] = [];
  let flags = 0;
  if (f.lat !== null && f.lng !== null) (flags |= FLAG.position), blocks.push(posinfo(f));
  const { input, output, driverUniqueId } = f.attrs;
  if (typeof input === 'number' && Number.isInteger(input)) (flags |= FLAG.inputs), blocks.push(block('avl_inputs', TYPE.int, int32(input | 0), true));
  if (typeof output === 'number' && Number.isInteger(output)) (flags |= FLAG.outputs), blocks.push(block('avl_outputs', TYPE.int, int32(output | 0), true));
  if (typeof driverUniqueId === 'string' && driverUniqueId) (flags |= FLAG.driver), blocks.push(block('avl_driver', TYPE.text, text(driverUniqueId), true));
  if (f.alarm) flags |= FLAG.alarm;
  if (f.hdop !== null) blocks.push(block('hdop', TYPE.double, double(f.hdop)));
  if (f.precision !== null) blocks.push(block('accuracy', TYPE.double, double(f.precision)));
  for (const [k, v] of Object.entries(f.attrs)) {
    if (FIXED.has(k) || k === 'hdop' || k === 'accuracy' || !NAME.test(k)) continue;
    if (typeof v === 'number' && Number.isFinite(v)) blocks.push(numberBlock(k, v));
    else if (typeof v === 'boolean') blocks.push(block(k, TYPE.int, int32(v ? 1 : 0)));
    else if (typeof v === 'string') blocks.push(block(k, TYPE.text, text(v)));
  }
  // GSM cells as mcc/mnc/lac/cell_id (the first without a suffix, then 1, 2, ...)
  const cells = Array.isArray(f.attrs.cells) ? (f.attrs.cells as Array<Record<string, number> | null>) : [];
  cells.slice(0, 10).forEach((c, i) => {
    if (c === null || typeof c !== 'object') return; // not a cell: skipped, never a batch that fails for good
    const s = i === 0 ? '' : String(i);
    for (const [name, key] of [['mcc', 'mcc'], ['mnc', 'mnc'], ['lac', 'lac'], ['cell_id', 'cid']] as const) if (Number.isInteger(c[key])) blocks.push(numberBlock(`${name}${s}`, c[key]));
  });
  const head = Buffer.alloc(8);
  head.writeUInt32BE(Math.max(0, Math.floor(f.time / 1000)) >>> 0, 0);
  head.writeUInt32BE(flags, 4);
  const body = Buffer.concat([Buffer.from(`${f.deviceId}\0`, 'latin1'), head, ...blocks]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length, 0);
  return Buffer.concat([size, body]);
}

/** Answers are single bytes; anything but 0x11 breaks the connection. */
const ackFramer: AnswerFramer = (buf) => {
  if (!buf.length) return null;
  if (buf[0] !== ACK) throw new Error(`receiver answered 0x${buf[0].toString(16).padStart(2, '0')} instead of 0x11`);
  return { frame: buf.subarray(0, 1), consumed: 1 };
};

export const wialonRetranslator: ForwardProtocol = {
  id: 9,
  name: 'Wialon Retranslator',
  hasLogin: false,
  hasPassword: false,
  requiredLogin: false,
  requiredPassword: false,
  // the controller id is zero-terminated text: printable ASCII without spaces
  fakeDeviceIdPattern: '^[!-~]{1,64}$',
  defaultPort: 20163,
  sessions: 'shared',
  ordered: true,
  batch: 1000,
  async open(target: Target, _deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
    const socket = await AckSocket.open(target.address, target.port, ackFramer, opts.timeoutMs);
    return {
      send: async (fixes: ForwardFix[]) => void (await Promise.all(fixes.map((f) => socket.request(retranslatorPacket(f))))),
      close: () => socket.close(),
    };
  },
};
