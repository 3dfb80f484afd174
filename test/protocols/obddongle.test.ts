import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/obddongle.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());
const IMEI = Buffer.from('864867022511015').toString('hex');

// The connack and puback layouts follow the open-source server's implementation; no public document
// of the dongle confirms them.
describe('obddongle replies', () => {
  it('answers connect with an accepting connack', () => {
    expect(decode(`55550003${IMEI}010009010011023402010201abaaaa`).reply?.toString('hex')).toBe(`55550003${IMEI}0200070100000000000000aaaa`);
  });
  it('answers publish with a puback echoing the data type', () => {
    const r = decode(`55550003${IMEI}03000100010355aabbcc184f1abc614e21c1fa08712a84abaaaa`);
    expect(r.reply?.toString('hex')).toBe(`55550003${IMEI}040002000100aaaa`);
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-07-18T20:49:16.000Z');
    expect(p).toMatchObject({ valid: true, satellites: 8, lat: 22.12346, lng: -123.45678, course: 298 });
    expect(p.speed).toBeCloseTo(54 * 1.609344, 6);
  });
  it('frames by the data length', () => {
    const bytes = Buffer.from(`55550003${IMEI}010009010011023402010201abaaaa55`, 'hex');
    expect(protocol.createFramer!().next(bytes)?.consumed).toBe(34);
  });
});
