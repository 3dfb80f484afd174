import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/xexun.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const FULL =
  '150224173341,+66961544651,GPRMC,093341.000,A,1344.5716,N,10033.6648,E,0.00,0.00,240215,,,A*68,F,help me!,imei:865328028306149,05,106.4,F:4.01V/ADC1=0.20V/ADC2=0.00V,1,159,955,520,01,5DE8,0399,6.21km';

describe('xexun decoding', () => {
  it('decodes the basic report; the device expects no answer', () => {
    const r = decode('GPRMC,150120.000,A,3346.4463,S,15057.3083,E,1.5,117.4,010911,,,A*76,F,imei:351525010943661,');
    expect(r.deviceId).toBe('351525010943661');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2011-09-01T15:01:20.000Z');
    expect(p).toMatchObject({ valid: true, course: 117.4, attributes: { gpsSignal: 'F' } });
    expect(p.lat).toBeCloseTo(-33.774105, 6);
    expect(p.lng).toBeCloseTo(150.95514, 5);
    expect(p.speed).toBeCloseTo(1.5 * 1.852, 6);
  });
  it('decodes the full report: alarm text, satellites, altitude, battery, ADC, charging, cell, odometer', () => {
    const [p] = decode(FULL).records!;
    expect(p).toMatchObject({ satellites: 5, altitude: 106.4 });
    expect(p.attributes).toMatchObject({ alarm: 'sos', event: 'help me!', battery: 4.01, batteryFull: true, adc1: 0.2, adc2: 0, charge: true, odometer: 6210 });
    expect(p.cells).toEqual([{ mcc: 520, mnc: 1, lac: 0x5de8, cid: 0x0399 }]);
  });
  it('reads ACC texts as ignition', () => {
    const [p] = decode('171007160525,,GPRMC,160525.000,A,5323.4680,N,00252.4202,W,000.0,129.7,071017,,,A*78,F,ACCStop, imei:864504031916915,10,41.1,F:4.28V,1,134,42896,234,15,0062,B7D5').records!;
    expect(p.attributes.ignition).toBe(false);
  });
  it('keeps a report without a GPS time as attributes only', () => {
    const [p] = decode('GPRMC,.000,A,0.000000,S,0.0000,W,0.00,0.00,,00,0000.0,A*55,L,,imei:353579010727036,').records!;
    expect(p.lat).toBeUndefined();
    expect(p.attributes.gpsSignal).toBe('L');
  });
});

describe('xexun framer', () => {
  it('cuts GPRMC..imei by default, whole lines with extended', () => {
    const input = Buffer.from(`${FULL}\r\n`);
    const basic = protocol.createFramer!().next(input)!;
    expect(basic.frame.toString()).toBe('GPRMC,093341.000,A,1344.5716,N,10033.6648,E,0.00,0.00,240215,,,A*68,F,help me!,imei:865328028306149,');
    expect(protocol.createFramer!({ extended: true }).next(input)!.frame.toString()).toBe(FULL);
    expect(protocol.createFramer!().next(Buffer.from('GPRMC,1,imei:8653'))).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => protocol.createFramer!().next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
    expect(() => protocol.createFramer!({ extended: true }).next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
  });
});
