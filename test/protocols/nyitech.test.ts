import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/nyitech.ts';
import { setObdValue } from '../../protocols/obd.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const LIVE = '4040690030313436383230303238373201201c0c12031a308080801c0c12031a3007d67e7e08aceb841002000000ae08000000000000000000000000001e002900f0ffdd002700f2ffe0002700f2ffe1002400f0ffdf002400f3ffe3008a00ffff01010000a9c70d0a';

describe('nyitech replies', () => {
  it('sends nothing back to reports or the login', () => {
    expect(decode(LIVE).reply).toBeUndefined();
    expect(decode('40404b003247512d313630313030313901101e0b100604190c02c83707f887ac0f000000002d130101030304020000010100000d426162636465666768696a6ba51e0b1006041965c30d0a').reply).toBeUndefined();
  });
});

describe('nyitech decoding', () => {
  it('reads a comprehensive report: hemispheres from the flags, cm/s, course and altitude in tenths', () => {
    const r = decode(LIVE);
    expect(r.deviceId).toBe('014682002872');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2018, 11, 28, 3, 26, 48), valid: true, lat: 39.58548166666667, lng: -76.98515, speed: 0.072, course: 0, altitude: 222.2,
      attributes: { fuelUsed: 0, tripOdometer: 0 },
    });
  });
  it('maps OBD PIDs with the J1979 formulas', () => {
    const a = {};
    setObdValue(a, 0x0c, 4000);
    setObdValue(a, 0x05, 130);
    setObdValue(a, 0x99, 1);
    expect(a).toEqual({ rpm: 1000, coolantTemp: 90 });
  });
  it('frames by the little-endian total length', () => {
    expect(protocol.createFramer!().next(Buffer.from(LIVE + '4040', 'hex'))!.consumed).toBe(0x69);
  });
});
