import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/jmak.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 6, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const REPORT =
  '~000000041FE3FFFF;233333-33333-3333333;868695060715016;8224;NULL;1750689928520;-19.88245;-43.97853;837.10;B;12.5;18;31;0.89;90.00;1;0;52.50;4.74;11750;3875;TIMB;4;1750689928534;1;9;0;0.00|00000000000041DF;180.00;211.00;208.00;190.00;7;50;P;8$';

describe('jmak', () => {
  it('acknowledges reports and other messages with ACK', () => {
    expect(decode(REPORT).reply?.toString()).toBe('ACK');
    expect(decode('{"cnt":10610}')).toEqual({ reply: Buffer.from('ACK') });
    expect(decode('^\x00\x01$')).toEqual({ reply: Buffer.from('ACK') });
  });
  it('decodes the fields its mask announces, and the CAN part', () => {
    const { deviceId, records } = decode(REPORT);
    expect(deviceId).toBe('868695060715016');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2025-06-23T14:45:28.520Z');
    expect(r).toMatchObject({ valid: true, lat: -19.88245, lng: -43.97853, altitude: 837.1, speed: 12.5, satellites: 18, hdop: 0.89, course: 90 });
    expect(r.attributes).toMatchObject({
      count1: 8224, rssi: 31, ignition: true, backup: false, hours: 211 * 3600000, odometer: 4740, power: 11.75, battery: 3.875,
      operator: 'TIMB', in1: true, in2: false, out1: false, out2: true, obdOdometer: 180000, obdSpeed: 208, rpm: 190, throttle: 50, fuelLevel: 8,
    });
  });
  it('decodes the JSON form', () => {
    const { deviceId, records } = decode(
      '{"cnt":10610,"ts":1751026130545,"gps":[-19.88249,-43.97855],"alt":850.40,"speed":0.00,"nsat":18,"hdop":0.87,"azi":0.00,"ive":0,"rssi":31,"evt":{},"bckup":0,"hourmt":61.25,"odomt":4.88,"fix":1,"ope":"TIMB","bat":3882,"vin":0,"imei":868695060715016}',
    );
    expect(deviceId).toBe('868695060715016');
    expect(records![0]).toMatchObject({ time: 1751026130545, valid: true, lat: -19.88249, lng: -43.97855, altitude: 850.4, satellites: 18, attributes: { ignition: false, odometer: 4880, battery: 3.882, hours: 61.25 * 3600000, operator: 'TIMB' } });
  });
  it('frames text, binary and JSON messages', () => {
    const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
    expect(next('~1;2$~')).toEqual({ frame: Buffer.from('~1;2$'), consumed: 5 });
    expect(next('{"a":{},"b":"}"}x')?.frame.toString()).toBe('{"a":{},"b":"}"}');
    expect(next('^\x00\x01$')?.consumed).toBe(4);
    expect(() => next(`~${'1'.repeat(5000)}`)).toThrow(FrameError);
  });
});
