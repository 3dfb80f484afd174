import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/starlink.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('starlink decoding', () => {
  it('decodes an event report with the default template; no answer is sent', () => {
    const r = decode('$SLU031B2B,06,624,170329035143,01,170329035143,+3158.0171,+03446.6742,006.8,326,000099,1,1,0,0,0,0,0,0,10452,8723,14.212,03.827,,1,1,1,4*6D');
    expect(r.deviceId).toBe('031B2B');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2017-03-29T03:51:43.000Z');
    expect(p.lat).toBeCloseTo(31 + 58.0171 / 60, 6);
    expect(p.lng).toBeCloseTo(34 + 46.6742 / 60, 6);
    expect(p).toMatchObject({ valid: true, speed: 6.8 * 1.852, course: 326 });
    expect(p.attributes).toMatchObject({ index: 624, event: 1, odometer: 99000, in1: true, in2: true, in3: false, power: 14.212, battery: 3.827, ignition: true });
    expect(p.cells).toEqual([{ mcc: 0, mnc: 0, lac: 10452, cid: 8723 }]);
  });
  it('follows the configured template: satellites, signal, fuel, wireless sensors', () => {
    const format = '#EDT#,#EID#,#PDT#,#LAT#,#LONG#,#SPD#,#HEAD#,#ODO#,#LAC#,#CID#,#VIN#,#VBAT#,#TI1#,#TS1#,#TV1#,#TH1#,#TD1#,#EDSC#,#TI2#,#TS2#,#TV2#,#TH2#,#TD2#';
    const [p] = decode(
      '$SLU351580050356894,06,1192,200811104100,01,200811104058,+4121.8168,+00205.1158,000.0,069,000069,2080,15139043,12.221,03.533,D469062D44D6,1,29.7,56.9,CAEaBtRpBi1E1jhLSJoYKLkEINIEWABgAmgAcAJ4AIABAIgBAA==,Location,D2567108639E,1,30.2,55.3,CAIaBtJWcQhjnjhPSPIXKKkEINwEWEpgA2gAcAJ4AIABAIgBAA==,1,99*5A',
      ctx({ format }),
    ).records!;
    expect(p.attributes).toMatchObject({ temp1: 29.7, humidity1: 56.9, temp2: 30.2, sensor2Id: 'D2567108639E', sensor2Voltage: 3.058, sensor2Humidity: 55.3, reason: 'Location' });
  });
  it('maps event ids to alarms and places reports without a position at the last fix', () => {
    const c = ctx();
    decode('$SLU031B2B,06,622,170329035057,01,170329035057,+3158.0018,+03446.6968,004.9,007,000099,1,1,0,0,0,0,0,0,,,14.176,03.826,,1,1,1,4*B0', c);
    const [p] = decode('$SLU031B2B,06,55,170518122023,09,,,,,,000000,1,1,0,0,0,0,0,0,10443,32722,12.664,03.910,,0,0*BF', c).records!;
    expect(p).toMatchObject({ valid: false, attributes: { alarm: 'powerCut', event: 9 } });
    expect(p.lat).toBeCloseTo(31 + 58.0018 / 60, 6);
    expect(new Date(p.time!).toISOString()).toBe('2017-05-18T12:20:23.000Z');
  });
});

describe('starlink framer', () => {
  it('cuts after the checksum', () => {
    expect(protocol.createFramer!().next(Buffer.from('$SLU1,06,1,x*6D\r\n$SLU'))).toEqual({ frame: Buffer.from('$SLU1,06,1,x*6D'), consumed: 17 });
    expect(protocol.createFramer!().next(Buffer.from('$SLU1,06,1,x*6'))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.alloc(3000, 0x24))).toThrow(FrameError);
  });
});
