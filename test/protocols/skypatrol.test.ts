import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/skypatrol.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config, session: {} });
const REPORT =
  '0005021004ffffffff0000000d313134373735383300cb000000000e11070c010184d032fb3841370000000016072b000017050032000000000000024e0c071116072c105900050000000000050000000000050000000003100260b7363b6306c11a00b73637f206bf19b73637f106b50eb73638b106bb0bb7363b6106b80ab73637f306b709000000000000000000';

describe('skypatrol', () => {
  it('decodes a binary position report by its field mask and sends no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT, 'hex'), ctx());
    expect(r.deviceId).toBe('11477583');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2012-07-17T22:07:43.000Z');
    expect(p).toMatchObject({ valid: true, lat: expect.closeTo(25.80211, 6), lng: expect.closeTo(-80.33228, 6), speed: 0, course: 0, altitude: 23, satellites: 5 });
    expect(p.attributes).toEqual({ status: 13, io1: 203, adc1: 0, adc2: 0, batteryLevel: 50, tripOdometer: 0, odometer: 590, power: 4.185, index: 0 });
  });

  it('yields nothing for text reports and acknowledgements', () => {
    expect(protocol.decode!(Buffer.from('000a02171101303131373232303031333537393833060200000006202020202020202020312020202020202030313137323230303133353739383320', 'hex'), ctx())).toEqual({});
  });

  it('uses the configured mask when the report carries none', () => {
    const body = REPORT.slice(18); // after the mask
    const r = protocol.decode!(Buffer.from('0005021000' + body, 'hex'), ctx({ mask: 0xffffffff }));
    expect(r.deviceId).toBe('11477583');
  });
});
