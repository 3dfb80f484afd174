import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/its.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const NORMAL =
  '$,C,CTPL,4.0.0,NR,01,L,869247045166383,NA00000000,1,12032020,144453,30.452524,N,077.610351,E,1.4,34.8,14,384.19,1.8,0.8,IDEA P,1,1,14.2,4.17,0,C,22,404,82,0FB1,3B26,516B,0FB1,18,3B25,0FB1,15,5169,0FB1,14,3B27,0FB1,13,0000,00,8083,194.9,0B,*';

describe('its replies', () => {
  it('answers a login with $LGN and the server time (ddmmyyyyhhmmss)', () => {
    const r = decode('$,LGN,MARK,000000000,358980100077446,V0.0.1,AIS140,19.804487,N,75.225876,E,*');
    expect(r.reply?.toString()).toBe('$LGN22022025010203*');
    expect(r.deviceId).toBe('358980100077446');
    expect(r.records).toBeUndefined();
  });
  it('answers a heartbeat with $HBT* and the 01 packet with $,1,*', () => {
    expect(decode('$,HBT,MARK,V0.0.1,358980100077446,*').reply?.toString()).toBe('$HBT*');
    expect(decode('$,01,XYZ123,0.0.1,861359034137271,MH12AB1234,').reply?.toString()).toBe('$,1,*');
  });
  it('does not answer location packets', () => {
    expect(decode(NORMAL).reply).toBeUndefined();
  });
});

describe('its decoding', () => {
  it('decodes a normal packet: km/h, dops, power, serving cell, inputs, odometer', () => {
    const { deviceId, records } = decode(NORMAL);
    expect(deviceId).toBe('869247045166383');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2020-03-12T14:44:53.000Z');
    expect(r).toMatchObject({ valid: true, lat: 30.452524, lng: 77.610351, speed: 1.4, course: 34.8, satellites: 14, altitude: 384.19, hdop: 0.8 });
    expect(r.cells).toEqual([{ mcc: 404, mnc: 82, lac: 0x0fb1, cid: 0x3b26, rssi: 22 }]);
    expect(r.attributes).toMatchObject({ event: 1, pdop: 1.8, operator: 'IDEA P', ignition: true, charge: true, power: 14.2, battery: 4.17, input: 0, output: 0, odometer: 194900 });
  });
  it('maps packet types to alarms and history packets to archive', () => {
    const [t] = decode(
      '$,03,XYZ123,0.0.1,TA,16,L,869867035297185,MH12AB1234,1,20,02,2019,10,59,13,023.482630,N,086.399673,E,000.1,015.19,21,212.3,01.12,00.58,NOSERV,0,1,00.0,4.6,1,C,11,404,75,082a,db3a,0000,0000,0000,0000,0000,0000,0000,0000,0000,0000,0000,0000,0000,01,000013,01dbd51f,',
    ).records!;
    expect(new Date(t.time!).toISOString()).toBe('2019-02-20T10:59:13.000Z');
    expect(t.attributes).toMatchObject({ alarm: 'tampering', event: 16, output: 1 });
    const [h] = decode(
      '$NMP,GPSBOX,1.6.8,NR,H,868997035844834,0000,1,220519,035419,28.6291409,N,77.3928299,E,015.2,157.40,07,197.86,2.1,1.0,airtel,1,1,13.3,4.1,0,O,31,404,10,0099,79b4,(-57,0099,334c,x,x,x,x,x,x,x,x,x),0012,00,000348,2,08.4,00.3,(0,0,0),CD*',
    ).records!;
    expect(h.attributes).toMatchObject({ archive: true, input: 2 });
  });
  it('decodes an emergency packet as sos', () => {
    const [r] = decode('$,EPB,EMR,868997031721531,NM,14072020111520,A,28.359959,N,076.927553,E,261.41,0.1,0.0,G,NA00000000,N.A0000000,*').records!;
    expect(r).toMatchObject({ valid: true, altitude: 261.41, speed: 0.1, attributes: { alarm: 'sos' } });
    expect(new Date(r.time!).toISOString()).toBe('2020-07-14T11:15:20.000Z');
  });
  it('places a packet without a device time at the server time, not valid', () => {
    const [r] = decode('$,EPB,EMR,861359034100626,SP,00,00,0000,00,00,00,V,000.000000,N,000.000000,E,000.0,000.0,000.00,N,MH12AB1234,0000000000000,d34679e1,').records!;
    expect(r).toMatchObject({ time: NOW, valid: false });
  });
});

describe('its framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('ends a frame at the next $, at * or at a line break', () => {
    expect(next('$,A,1,E$,B')?.frame.toString()).toBe('$,A,1,E');
    expect(next('$NRM,1,96D4F701*$NRM')?.frame.toString()).toBe('$NRM,1,96D4F701');
    expect(next('$Header,1,E*5E\r\n$')).toEqual({ frame: Buffer.from('$Header,1,E*5E'), consumed: 16 });
    expect(next('$,CP,1,:*,O')?.frame.toString()).toBe('$,CP,1,');
  });
  it('waits for a checksum that may follow the star', () => {
    expect(next('$Header,1,E*5')).toBeNull();
    expect(next('$,1,2')).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('x'.repeat(3000))).toThrow(FrameError);
    expect(() => next(`$${'1'.repeat(3000)}`)).toThrow(FrameError);
  });
});

describe('its commands', () => {
  it('switches output 1 for engine stop and resume', () => {
    const encode = (type: string) => protocol.encode!({ type, attributes: {} }, { deviceId: '1', now: NOW, config: {} }).toString();
    expect(encode('engineStop')).toBe('@SET#RLP,OP1,');
    expect(encode('engineResume')).toBe('@SET#RLP,OP0,');
    expect(() => encode('positionSingle')).toThrow();
  });
});
