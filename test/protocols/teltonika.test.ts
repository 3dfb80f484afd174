import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/teltonika/index.ts';
import { crc16Ibm } from '../../protocols/binary.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';
import { messageLines, payloadBytes } from './harness.ts';

const hex = (s: string) => Buffer.from(s, 'hex');
const ctx = (over: Partial<DecodeContext> = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, ...over });

const LOGIN = '000f313233343536373839303132333435';
// Codec 8, one record: FMB-style fix at 95 km/h with external power 14.375 V
const CODEC8 =
  '000000000000004508010000015eb70a86d00024089d4d21dee3860137005f12005f000e06ef01f00150011503c800450108b5000bb6000642382718005fcd057ace19d3430f57440000000001000002bf';
// Codec 8 over UDP (vendor example): packet id 0xcafe, AVL packet id 0x05, one record
const UDP =
  '003dcafe0105000f33353230393330383634303336353508010000016b4f815b30010000000000000000000000000000000103021503010101425dbc000001';

describe('teltonika decoder', () => {
  it('answers the IMEI packet with 0x01 and identifies the device', () => {
    const r = protocol.decode!(hex(LOGIN), ctx());
    expect(r.deviceId).toBe('123456789012345');
    expect(r.reply).toEqual(Buffer.from([0x01]));
  });

  it('acknowledges AVL data with the record count as u32 and decodes the fix', () => {
    const r = protocol.decode!(hex(CODEC8), ctx({ deviceId: '123456789012345' }));
    expect(r.reply?.toString('hex')).toBe('00000001');
    const [f] = r.records!;
    expect(f.time).toBe(Date.parse('2017-09-25T03:17:54.000Z'));
    expect(f.lat).toBeCloseTo(56.8255366, 7);
    expect(f.lng).toBeCloseTo(60.4544333, 7);
    expect(f.speed).toBe(95); // km/h as sent
    expect(f.course).toBe(95);
    expect(f.satellites).toBe(18);
    expect(f.valid).toBe(true);
    expect(f.attributes.power).toBeCloseTo(14.375, 6);
    expect(f.attributes.battery).toBeCloseTo(3.927, 6);
    expect(f.attributes.ignition).toBe(true);
    expect(f.attributes.hdop).toBeCloseTo(0.6, 6);
    expect(f.cells).toEqual([{ mcc: 0, mnc: 0, lac: 6611, cid: 1402 }]);
  });

  it('does not acknowledge data that arrives before the IMEI', () => {
    const r = protocol.decode!(hex(CODEC8), ctx());
    expect(r.reply).toBeUndefined();
    expect(r.records ?? []).toEqual([]);
  });

  it('answers a UDP datagram echoing packet id and AVL packet id with the count', () => {
    const r = protocol.decode!(hex(UDP), ctx({ transport: 'udp' }));
    expect(r.deviceId).toBe('352093086403655');
    expect(r.reply?.toString('hex')).toBe('0005cafe010501');
    expect(r.records).toHaveLength(1);
    expect(r.records![0].attributes.power).toBeCloseTo(23.996, 6);
  });

  it('ignores the 0xFF keep-alive', () => {
    expect(protocol.decode!(hex('ff'), ctx())).toEqual({});
  });

  it('turns a Codec 12 reply into a result record at the last known location', () => {
    const c = ctx({ deviceId: '123456789012345' });
    protocol.decode!(hex(CODEC8), c);
    const reply = protocol.decode!(protocol.encode!({ type: 'custom', attributes: { data: 'getver' } }, { deviceId: 'x', now: 0, config: {} }), c);
    expect(reply.reply).toBeUndefined();
    const [rec] = reply.records!;
    expect(rec.attributes.result).toBe('getver');
    expect(rec.valid).toBe(false);
    expect(rec.lat).toBeCloseTo(56.8255366, 7);
  });

  it('asks for the first photo chunk when the camera announces a photo', () => {
    const body = '01' + '00000007' + '00000100'; // announcement, photo id 7, 256 bytes
    const data = '0c010d' + (body.length / 2).toString(16).padStart(8, '0') + body + '01';
    const frame = hex('00000000' + (data.length / 2).toString(16).padStart(8, '0') + data + '00000000');
    const r = protocol.decode!(frame, ctx({ deviceId: '1' }));
    const req = r.reply!;
    expect(req.subarray(8, 11).toString('hex')).toBe('0c010d');
    expect(req.subarray(15, 26).toString('hex')).toBe('02' + '00000007' + '00000000' + '0100');
    expect(req.readUInt32BE(req.length - 4)).toBe(crc16Ibm(req, 8, req.length - 4));
  });
});

/** One Codec 8 record: IO elements per section as [id, value] (8-byte values as bigint). */
interface Rec8 {
  time?: number;
  io1?: Array<[number, number]>;
  io2?: Array<[number, number]>;
  io4?: Array<[number, number]>;
  io8?: Array<[number, bigint]>;
  /** The 16-byte section of the `extended` setting, values in hex. */
  io16?: Array<[number, string]>;
}
/** A Codec 8 TCP packet of `records` (fix at 54.6872, 25.2797; CRC not checked by the decoder). */
function codec8(records: Rec8[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x08, records.length])];
  for (const r of records) {
    const fixed = Buffer.alloc(26);
    fixed.writeBigUInt64BE(BigInt(r.time ?? Date.UTC(2024, 0, 1)), 0);
    fixed.writeInt32BE(252797000, 9);
    fixed.writeInt32BE(546872000, 13);
    fixed.writeUInt8(9, 21); // satellites
    parts.push(fixed);
    for (const [size, items] of [[1, r.io1], [2, r.io2], [4, r.io4]] as const) {
      parts.push(Buffer.from([items?.length ?? 0]));
      for (const [id, v] of items ?? []) {
        const b = Buffer.alloc(1 + size);
        b[0] = id;
        b.writeUIntBE(v, 1, size);
        parts.push(b);
      }
    }
    parts.push(Buffer.from([r.io8?.length ?? 0]));
    for (const [id, v] of r.io8 ?? []) {
      const b = Buffer.alloc(9);
      b[0] = id;
      b.writeBigUInt64BE(v, 1);
      parts.push(b);
    }
    if (r.io16) parts.push(Buffer.from([r.io16.length]), ...r.io16.map(([id, v]) => Buffer.concat([Buffer.from([id]), hex(v)])));
  }
  parts.push(Buffer.from([records.length]));
  const data = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 4);
  return Buffer.concat([head, data, Buffer.alloc(4)]);
}
const decodeAll = (frame: Buffer, c = ctx({ deviceId: '1' })) => protocol.decode!(frame, c).records!;
/** Attributes with their key order, as JSON. */
const attrsJson = (frame: Buffer) => decodeAll(frame).map((r) => JSON.stringify(r.attributes));

describe('teltonika compiled layouts', () => {
  // Records of a layout seen a few times are read by code compiled for it; they must come out exactly
  // as the general path makes them: the same keys, in the same order, with the same values.
  it('decode every captured data packet the same before and after its layouts are compiled', () => {
    const frames = messageLines('teltonika')
      .filter((l) => l.transport === 'tcp' && l.payload.startsWith('00000000') && ['08', '8e', '10'].includes(l.payload.slice(16, 18)))
      .map((l) => ({ frame: payloadBytes(l), config: l.decoder_config ?? {} }));
    expect(frames.length).toBeGreaterThan(30);
    for (const { frame, config } of frames) {
      const once = () => JSON.stringify(protocol.decode!(frame, ctx({ deviceId: '1', config })));
      const first = once();
      for (let i = 0; i < 12; i++) expect(once()).toBe(first);
    }
  });

  it('place the alarm where the first alarm that fired puts it, and join the names', () => {
    // ignition, general alarm (236), power cut (252), then power: every combination, twice
    const combos: Array<[number, number]> = [[0, 0], [1, 0], [0, 1], [1, 1]];
    const frame = codec8([...combos, ...combos].map(([general, cut]) => ({ io1: [[239, 1], [236, general], [252, cut]], io2: [[66, 12000]] })));
    const want = [
      { priority: 0, event: 0, ignition: true, power: 12 },
      { priority: 0, event: 0, ignition: true, alarm: 'general', power: 12 },
      { priority: 0, event: 0, ignition: true, alarm: 'powerCut', power: 12 },
      { priority: 0, event: 0, ignition: true, alarm: 'general,powerCut', power: 12 },
    ].map((a) => JSON.stringify(a));
    for (let i = 0; i < 3; i++) expect(attrsJson(frame)).toEqual([...want, ...want]);
  });

  it('keep an iButton only when one is attached', () => {
    const frame = codec8([0n, 0x0102030405060708n, 0n, 0n, 0x0102030405060708n].map((key) => ({ io1: [[240, 1]], io8: [[78, key]] })));
    for (let i = 0; i < 3; i++) {
      const ids = decodeAll(frame).map((r) => r.attributes.driverUniqueId);
      expect(ids).toEqual([undefined, '0807060504030201', undefined, undefined, '0807060504030201']);
    }
  });

  it('read the extended 16-byte section when the setting asks for it', () => {
    const frame = codec8(Array.from({ length: 5 }, () => ({ io1: [[239, 1]], io16: [[203, '00112233445566778899aabbccddeeff']] })));
    const c = () => ctx({ deviceId: '1', config: { extended: true } });
    for (let i = 0; i < 3; i++) {
      const recs = protocol.decode!(frame, c()).records!;
      expect(recs).toHaveLength(5);
      for (const r of recs) expect(r.attributes).toEqual({ priority: 0, event: 0, ignition: true, io203: '00112233445566778899aabbccddeeff' });
    }
  });

  it('take MCC and MNC from the operator code', () => {
    for (const [operator, mcc, mnc] of [[24601, 246, 1], [25001, 250, 1], [310260, 310, 260], [1234, 123, 4]]) {
      const frame = codec8(Array.from({ length: 6 }, () => ({ io2: [[206, 6611]], io4: [[205, 1402], [241, operator]] })));
      for (const r of decodeAll(frame)) expect(r.cells).toEqual([{ mcc, mnc, lac: 6611, cid: 1402 }]);
    }
  });
});

describe('teltonika last known location', () => {
  it('remembers the newest valid fix of a packet, also when a later record is truncated', () => {
    const c = ctx({ deviceId: '1' });
    const good = codec8([{ time: Date.UTC(2024, 0, 1, 10) }, { time: Date.UTC(2024, 0, 1, 9) }]);
    protocol.decode!(good, c);
    expect((c.session as { last?: { time?: number } }).last?.time).toBe(Date.UTC(2024, 0, 1, 10));
    const newer = codec8([{ time: Date.UTC(2024, 0, 1, 11) }, { time: Date.UTC(2024, 0, 1, 12) }]);
    expect(() => protocol.decode!(newer.subarray(0, newer.length - 20), c)).toThrow(DecodeError);
    expect((c.session as { last?: { time?: number } }).last?.time).toBe(Date.UTC(2024, 0, 1, 11));
  });
});

describe('teltonika framer', () => {
  const framer = () => protocol.createFramer!();

  it('waits for the rest of a split packet', () => {
    expect(framer().next(hex(LOGIN.slice(0, 10)))).toBeNull();
    expect(framer().next(hex(CODEC8.slice(0, 40)))).toBeNull();
    expect(framer().next(hex('00'))).toBeNull();
  });

  it('cuts several packets out of one chunk', () => {
    const f = framer();
    const buf = hex(LOGIN + CODEC8 + 'ff');
    const a = f.next(buf)!;
    expect(a.frame.toString('hex')).toBe(LOGIN);
    const b = f.next(buf.subarray(a.consumed))!;
    expect(b.frame.toString('hex')).toBe(CODEC8);
    const c = f.next(buf.subarray(a.consumed + b.consumed))!;
    expect(c.frame.toString('hex')).toBe('ff');
  });

  it('rejects garbage', () => {
    expect(() => framer().next(hex('00001234deadbeef'))).toThrow(FrameError);
    expect(() => framer().next(hex('0000000011223344'))).toThrow(FrameError);
    expect(() => framer().next(hex('4142434445'))).toThrow(FrameError);
  });
});

describe('teltonika encoder', () => {
  const enc = (type: string, attributes: Record<string, string | number | boolean>) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} });

  it('wraps text in a Codec 12 command with CRC-16/IBM', () => {
    expect(enc('custom', { data: 'setdigout 11' }).toString('hex')).toBe('00000000000000140c01050000000c7365746469676f7574203131010000bed5');
  });

  it('sends hex data as raw bytes', () => {
    expect(enc('custom', { data: '03030000000185E8' }).toString('hex')).toBe('00000000000000100c01050000000803030000000185e8010000da8b');
  });

  it('maps engine and output commands to setdigout', () => {
    const text = (b: Buffer) => b.subarray(15, b.length - 5).toString('latin1');
    expect(text(enc('engineStop', {}))).toBe('setdigout 1');
    expect(text(enc('engineResume', {}))).toBe('setdigout 0');
    expect(text(enc('outputControl', { index: 2, data: 1 }))).toBe('setdigout ?1');
  });

  it('throws for unsupported commands', () => {
    expect(() => enc('alarmSos', {})).toThrow();
  });
  it('sends chat text as a Codec 12 command', () => {
    expect(enc('message', { message: 'Go to depot 4' }).toString('hex')).toBe(enc('custom', { data: 'Go to depot 4' }).toString('hex'));
  });
});
