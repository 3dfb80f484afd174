import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/xirgo.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (transport: 'tcp' | 'udp' = 'tcp', config = {}): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport, config, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

const NEW = '$$352054058132185,4001,2017/04/21,00:01:05,32.54659,-116.90670,143.2,10,0,0,598,90.5,12,0.9,765840,7.0,14.5,19,1,1,0011,8.5,63.2,5,21999,184,255,671,207,100,185##';

describe('xirgo replies', () => {
  it('acknowledges UDP reports with !UDP_ACK,<event>,<last field> and sends nothing over TCP', () => {
    expect(decode(NEW, ctx('udp')).reply?.toString()).toBe('!UDP_ACK,4001,185');
    expect(decode(NEW).reply).toBeUndefined();
  });
});

describe('xirgo decoding', () => {
  it('decodes the new layout: mph, miles, IO and engine values', () => {
    const { deviceId, records } = decode(NEW);
    expect(deviceId).toBe('352054058132185');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2017-04-21T00:01:05.000Z');
    expect(r).toMatchObject({ valid: true, lat: 32.54659, lng: -116.9067, altitude: 143.2, course: 90.5, satellites: 12, hdop: 0.9 });
    expect(r.speed).toBeCloseTo(16.09344, 5);
    expect(r.attributes).toMatchObject({ event: 4001, ignition: true, odometer: Math.round(765840 * 1609.344), battery: 14.5, rssi: 19, in3: true, out1: true, in1: false, adc1: 8.5, fuelLevel: 63.2, hours: 21999 * 3600000, coolantTemp: 185 });
  });
  it('decodes the old layout', () => {
    const [r] = decode('$$354660046140722,6001,2013/01/22,15:36:18,25.80907,-80.32531,7.1,19,165.2,11,0.8,11.1,17,1,1,3.9,2##').records!;
    expect(r).toMatchObject({ valid: true, lat: 25.80907, lng: -80.32531, course: 165.2, satellites: 11, attributes: { battery: 11.1, rssi: 17, event: 6001 } });
  });
  it('decodes a configured form', () => {
    const form = 'UID,EV,D,T,LT,LN,AL,GSPT,HD,SV,HP,BV,CQ,GS,SI,IG,OT';
    const { deviceId, records } = decode('$$183900034,6002,03/30/2019,02:15:22,46.848577,-114.022213,978,40.0,1723,16,1.2,13.291,20,3,2,2,1##', ctx('tcp', { form }));
    expect(deviceId).toBe('183900034');
    expect(records![0]).toMatchObject({ valid: true, speed: 40, course: 172.3, altitude: 978, attributes: { alarm: 'overspeed', ignition: false, output: 1 } });
    expect(new Date(records![0].time!).toISOString()).toBe('2019-03-30T02:15:22.000Z');
  });
});

describe('xirgo framer and commands', () => {
  it('cuts at ##', () => {
    expect(protocol.createFramer!().next(Buffer.from('$$1,2##$$3'))).toEqual({ frame: Buffer.from('$$1,2##'), consumed: 7 });
    expect(() => protocol.createFramer!().next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
  });
  it('encodes output control', () => {
    const encode = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '1', now: 0, config: {} }).toString();
    expect(encode('outputControl', { index: 0, data: 1 })).toBe('+XT:7005,2,1');
    expect(() => encode('engineStop')).toThrow();
  });
});
