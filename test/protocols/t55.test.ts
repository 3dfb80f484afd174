import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/t55.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 12, 0, 0);
const ctx = (config = {}, deviceId?: string): DecodeContext => ({ now: NOW, transport: 'tcp', config, session: {}, deviceId });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('t55 replies', () => {
  it('answers nothing by default, OK1 to an RMC when configured (TCP only)', () => {
    const rmc = '$GPRMC,094907.000,A,6000.5332,N,03020.5192,E,1.17,60.26,091111,,*33';
    expect(decode(rmc, ctx({}, '1')).reply).toBeUndefined();
    expect(decode(rmc, ctx({ ack: true }, '1')).reply?.toString()).toBe('OK1\r\n');
    expect(decode(rmc, { ...ctx({ ack: true }, '1'), transport: 'udp' }).reply).toBeUndefined();
    expect(decode('$PGID,359853000144328*0F').reply).toBeUndefined();
  });
});

describe('t55 decoding', () => {
  it('learns the id from every identity sentence', () => {
    expect(decode('$PGID,359853000144328*0F').deviceId).toBe('359853000144328');
    expect(decode('$DEVID,0x0103846677F21422*41').deviceId).toBe('0x0103846677F21422');
    expect(decode('$PSIWMDID,6Q5161694402B133*2F').deviceId).toBe('6Q5161694402B133');
    expect(decode('$IMEI=355797031609284').deviceId).toBe('355797031609284');
    expect(decode('IMEI 351467108700000').deviceId).toBe('351467108700000');
    expect(decode('$PCPTI,CradlePoint Test,184453,184453.0,6F*57').deviceId).toBe('CradlePoint Test');
    expect(decode('086415031C20').deviceId).toBe('086415031C20');
    expect(decode('4711/022789000688081/$GPRMC,133343,A,5308.56325,N,1029.12850,E,0.000000,0.000000,290316,,*2A').deviceId).toBe('022789000688081');
  });
  it('decodes an RMC with the T55 tail: satellites, imei, ignition, fuel, battery, io', () => {
    const r = decode('$GPRMC,073446.000,A,1255.5125,N,07738.2948,E,0.00,0.53,080316,D*71,11,865733027593268,1,090,086,123,456');
    expect(r.deviceId).toBe('865733027593268');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2016-03-08T07:34:46.000Z');
    expect(f.lat).toBeCloseTo(12.925208, 5);
    expect(f.lng).toBeCloseTo(77.63825, 5);
    expect(f).toMatchObject({ valid: true, satellites: 11, course: 0.53, attributes: { ignition: true, fuel: 90, battery: 86, io1: 123, io2: 456 } });
  });
  it('decodes GGA with altitude, satellites and hdop on the day nearest to now', () => {
    const [f] = decode('$GNGGA,164414.90,4650.5156500,N,01246.1059604,E,1,12,0.84,740.729,M,44.804,M,,*4E', ctx({}, '1')).records!;
    expect(new Date(f.time!).toISOString()).toBe('2025-02-22T16:44:14.000Z');
    expect(f).toMatchObject({ valid: true, satellites: 12, hdop: 0.84, altitude: 740.729 });
  });
  it('holds a Maxon fix until $GPFID names the device', () => {
    const c = ctx();
    expect(decode('$GPRMC,012006,A,4828.10,N,1353.52,E,0.00,0.00,180915,020.3,E*42', c).records).toBeUndefined();
    const r = decode('$GPFID,ID123456ABC', c);
    expect(r.deviceId).toBe('ID123456ABC');
    expect(r.records![0].lat).toBeCloseTo(48.468333, 5);
  });
  it('decodes QZE (km/h), PUBX (accuracy) and WMCS (alarm status, io masks)', () => {
    const [q] = decode('QZE,868994033976700,35,28062020,113553,22.13673,114.57263,0,22,A,0').records!;
    expect(new Date(q.time!).toISOString()).toBe('2020-06-28T11:35:53.000Z');
    expect(q).toMatchObject({ lat: 22.13673, lng: 114.57263, speed: 0, course: 22, attributes: { event: 35, ignition: false } });
    const p = decode('$PUBX,00,130209.00,3650.51159,N,01346.10602,E,785.947,D3,4.1,5.2,0.163,87.43,-0.054,7.0,0.88,1.21,0.88,24,01012,0*6D');
    expect(p.deviceId).toBe('01012');
    expect(p.records![0]).toMatchObject({ altitude: 785.947, precision: 4.1, speed: 0.163, course: 87.43, hdop: 0.88, satellites: 24 });
    const [w] = decode('$ID,355826017981316,666,370,ALARM,0x00004000,IOP,M,48,GPSET,V,D,160517,T,161628,S,0:0,La,51.64175,N,Lo,2.21816,W,H,21.47,V,0.0,DD,0').records!;
    expect(w).toMatchObject({ valid: false, lat: 51.64175, lng: -2.21816, course: 21.47, attributes: { alarm: 'general', status: 0x4000 } });
  });
  it('decodes GPIOP power and battery and GPTXT network', () => {
    const [io] = decode('$GPIOP,01000000,00000000,0.00,0.00,0.00,0.00,4.69,4.24*49', ctx({}, '1')).records!;
    expect(io.attributes).toMatchObject({ input: 2, output: 0, power: 4.69, battery: 4.24 });
    const t = decode('$GPTXT,NET,1003,A1,-53,232 01*77');
    expect(t.deviceId).toBe('1003');
    expect(t.records![0].attributes).toEqual({ operator: 'A1', rssi: -53, mcc: 232, mnc: 1 });
  });
});

describe('t55 framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s));
  it('cuts lines', () => {
    expect(next('$PGID,1*0F\r\n$GP')).toEqual({ frame: Buffer.from('$PGID,1*0F'), consumed: 11 });
    expect(next('\n$GPRMC,1')).toBeNull();
    expect(() => next('x'.repeat(2000))).toThrow(FrameError);
  });
});
