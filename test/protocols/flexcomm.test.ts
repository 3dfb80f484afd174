import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/flexcomm.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '7E00865067022408382201705302358271024932258006712785200700022601010224100040002C5002A2210001000000010012342107';

// `{01}` is the acknowledgement the open-source server that documents this protocol sends; no vendor
// document confirms it.
describe('flexcomm replies', () => {
  it('answers a report with {01}', () => {
    expect(protocol.decode!(Buffer.from(REPORT), ctx()).reply!.toString('latin1')).toBe('{01}');
  });
});

describe('flexcomm decoding', () => {
  it('reads a report with its cell, inputs, outputs and supply', () => {
    expect(protocol.decode!(Buffer.from(REPORT), ctx())).toMatchObject({
      deviceId: '865067022408382',
      records: [
        {
          time: Date.UTC(2017, 4, 30, 23, 58, 27), valid: true, lat: 24.932258, lng: 67.127852, altitude: 70, speed: 2, course: 260, satellites: 10,
          cells: [{ mcc: 410, mnc: 4, lac: 709, cid: 10786 }],
          attributes: { status: 0, satellitesVisible: 10, rssi: 22, in1: true, in2: false, in3: false, out1: false, out2: true, fuel: 0, temp1: 0, batteryLevel: 100, power: 12.3 },
        },
      ],
    });
  });
  it('reads the leading 1 of a signed field as minus', () => {
    const south = REPORT.replace('1024932258', '1124932258');
    expect(protocol.decode!(Buffer.from(south), ctx()).records![0].lat).toBe(-24.932258);
  });
  it('frames every 110 bytes', () => {
    const framer = protocol.createFramer!();
    const bytes = Buffer.from(REPORT + REPORT.slice(0, 20));
    expect(framer.next(bytes)).toEqual({ frame: Buffer.from(REPORT), consumed: 110 });
    expect(framer.next(bytes.subarray(110))).toBeNull();
  });
});
