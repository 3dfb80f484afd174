import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/snapper.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);
const GPS_PACKET =
  '4b044daff87aff5b8aad0000430100000000bb870c005b37000500210008003e0100ffffffff7f2300190000007f000000018080000002deff080003404000000400000034008c007b2273223a22303034303438222c226332223a2230303030303030303030303030303030222c226132223a2230303030303030303030303030303030222c226f223a2230303030222c2274223a2230303030222c227a223a223030222c2277223a223030222c2272223a222d222c226d223a223030303030303030222c2262223a223030303030303030227d320079007b2266223a224445222c2274223a22303832303335222c2264223a22313730343234222c226c61223a22353334312e34323635222c226c6f223a2230303935342e30373935222c2261223a22362e32222c2273223a22322e3237222c2263223a2233302e3135222c227376223a223038222c2270223a22227d330007007b2262223a5d7d';

// The answer layout follows the open-source server's implementation; its checksum rule (byte sum of the
// text) is the one the captured hello packet itself carries (0x14 for "hello").
describe('snapper', () => {
  it('answers hello with hello, echoing index and type', () => {
    const r = decode('4b0341a6b0c608000040000005000000000000007d5e14010068656c6c6f');
    expect(r.deviceId).toBe('1073741832');
    expect(r.reply?.toString('hex')).toBe('4b030000000000000000000005000000000000007d5e14010068656c6c6f');
    expect(r.records).toBeUndefined();
  });

  it('decodes a concatenated packet (events, technical info, GPS JSON) and answers OK', () => {
    const r = decode(GPS_PACKET);
    expect(r.reply?.toString('hex')).toBe('4b030000000000000000000002000000000000000c009a37004f4b');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2024-04-17T08:20:35.000Z');
    expect(p).toMatchObject({ valid: true, altitude: 6.2, course: 30.15, satellites: 8 });
    expect(p.lat).toBeCloseTo(53.6904417, 6);
    expect(p.lng).toBeCloseTo(9.901325, 6);
    expect(p.speed).toBeCloseTo(2.27 * 1.852, 6);
    expect(p.attributes).toEqual({ event: 62, power: 12.7, deviceTemp: 0, rssi: 0 });
  });

  it('answers a ping with PO and frames pings and packets', () => {
    expect(decode('5003')).toEqual({ reply: Buffer.from('PO') });
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from('5012', 'hex'))?.frame.toString('hex')).toBe('5012');
    expect(framer.next(Buffer.from(GPS_PACKET.slice(0, 200), 'hex'))).toBeNull();
    expect(framer.next(Buffer.from(GPS_PACKET + '5003', 'hex'))?.consumed).toBe(GPS_PACKET.length / 2);
  });
});
