import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/galileo.ts';
import { crc16Modbus } from '../../protocols/binary.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const hex = (s: string) => Buffer.from(s, 'hex');
const ctx = (over: Partial<DecodeContext> = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, ...over });

/** A main packet from tags (hex), with length and CRC filled in. */
function packet(tags: string): Buffer {
  const body = hex(tags);
  const head = Buffer.from([0x01, body.length & 0xff, body.length >> 8]);
  const out = Buffer.concat([head, body, Buffer.alloc(2)]);
  out.writeUInt16LE(crc16Modbus(out, 0, out.length - 2), out.length - 2);
  return out;
}

const IMEI = '03' + Buffer.from('868204001549087').toString('hex');
// time 2016-06-24T03:28:53Z, valid fix 53.41784 N 50.167228 E with 12 satellites, 9.9 km/h course 106.2, altitude 62, 26.698 V
const FIX = '20' + 'f5a86c57' + '30' + '0c' + '70172f03' + 'bc7dfd02' + '33' + '6300' + '2604' + '34' + '3e00' + '41' + '4a68';
// identification-only packet from the captures (IMEI + device id)
const LOGIN = '011380033836383230343030313534393038370432008590';

describe('galileo decoder', () => {
  it('acknowledges a packet with 0x02 and its CRC', () => {
    const r = protocol.decode!(hex(LOGIN), ctx());
    expect(r.deviceId).toBe('868204001549087');
    expect(r.reply?.toString('hex')).toBe('028590');
    expect(r.records).toEqual([]);
  });

  it('decodes a fix from tags', () => {
    const r = protocol.decode!(packet(IMEI + FIX), ctx());
    const [f] = r.records!;
    expect(f.time).toBe(Date.parse('2016-06-24T03:28:53Z'));
    expect(f.valid).toBe(true);
    expect(f.satellites).toBe(12);
    expect(f.lat).toBeCloseTo(53.41784, 6);
    expect(f.lng).toBeCloseTo(50.167228, 6);
    expect(f.speed).toBeCloseTo(9.9, 6); // km/h
    expect(f.course).toBeCloseTo(106.2, 6);
    expect(f.altitude).toBe(62);
    expect(f.attributes.power).toBeCloseTo(26.698, 6);
    expect(r.reply![0]).toBe(0x02);
  });

  it('splits records where a tag repeats', () => {
    const r = protocol.decode!(packet(IMEI + FIX + FIX.replace('f5a86c57', 'f6a86c57')), ctx());
    expect(r.records).toHaveLength(2);
    expect(r.records![1].time! - r.records![0].time!).toBe(1000);
  });

  it('turns command text (tag 0xE1) into a result at the last location', () => {
    const c = ctx();
    protocol.decode!(packet(IMEI + FIX), c);
    const text = Buffer.from('OUT(3..0) = 1110');
    const r = protocol.decode!(packet(IMEI + 'e1' + text.length.toString(16).padStart(2, '0') + text.toString('hex')), c);
    const [rec] = r.records!;
    expect(rec.attributes.result).toBe('OUT(3..0) = 1110');
    expect(rec.valid).toBe(false);
    expect(rec.lat).toBeDefined();
  });

  it('answers photo parts with 0x07 and the CRC', () => {
    const part = Buffer.concat([Buffer.from([0x07, 0x04, 0x00, 0x00]), hex('ffd8ff'), Buffer.alloc(2)]);
    part.writeUInt16LE(crc16Modbus(part, 0, part.length - 2), part.length - 2);
    const r = protocol.decode!(part, ctx({ deviceId: '1' }));
    expect(r.reply?.toString('hex')).toBe('07' + part.subarray(-2).toString('hex'));
  });

  it('rejects a bad CRC', () => {
    const p = packet(IMEI + FIX);
    p[p.length - 1] ^= 0xff;
    expect(() => protocol.decode!(p, ctx())).toThrow(DecodeError);
  });
});

describe('galileo framer', () => {
  const framer = () => protocol.createFramer!();
  it('waits for the whole packet', () => {
    expect(framer().next(hex(LOGIN.slice(0, 20)))).toBeNull();
  });
  it('cuts consecutive packets', () => {
    const two = Buffer.concat([hex(LOGIN), packet(IMEI + FIX)]);
    const a = framer().next(two)!;
    expect(a.frame.toString('hex')).toBe(LOGIN);
    expect(framer().next(two.subarray(a.consumed))!.frame).toEqual(packet(IMEI + FIX));
  });
  it('rejects an unknown header byte', () => {
    expect(() => framer().next(hex('55aa0000000000'))).toThrow(FrameError);
  });
});

describe('galileo encoder', () => {
  const enc = (type: string, attributes: Record<string, string | number | boolean>) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} });
  it('sends command text in tag 0xE1 with IMEI, device id and index', () => {
    expect(enc('custom', { data: 'status' }).toString('hex')).toBe('01200003313233343536373839303132333435040000e000000000e1067374617475731f64');
  });
  it('encodes output control as the Out command', () => {
    const b = enc('outputControl', { index: 1, data: 1 });
    expect(b.subarray(29, b.length - 2).toString()).toBe('Out 1,1');
    expect(b.readUInt16LE(b.length - 2)).toBe(crc16Modbus(b, 0, b.length - 2));
  });
});
