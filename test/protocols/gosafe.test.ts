import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gosafe.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const BINARY = 'f80601013fb82203661b2ee46249007a13003f45feefeeb401db1bbe00000000060e00d602018904036412080c010111e121003100410051010807000000000000004655f8';

describe('gosafe replies', () => {
  it('acknowledges every packet with 1234: text records, identification, binary', () => {
    expect(decode('*GS06,351535058659335,081234310719,,SYS:G6S;V3.37;V1.1.8,GPS:A;10;N23.169758;E113.450640;0;323;47;0.82#').reply?.toString()).toBe('1234');
    const id = decode('*GS16,351535058709775');
    expect(id).toMatchObject({ deviceId: '351535058709775', reply: Buffer.from('1234') });
    expect(id.records).toBeUndefined();
    expect(protocol.decode!(Buffer.from(BINARY, 'hex'), ctx()).reply?.toString()).toBe('1234');
  });
});

describe('gosafe text', () => {
  it('decodes every record of a packet with its sections', () => {
    const { records } = decode(
      '*GS06,356449068350122,013519070819,1C,SYS:G6S;V3.37;V1.1.8,GPS:A;12;N23.169866;E113.450728;10;255;54;0.79,COT:18779;2-8-17,ADC:12.66;0.58,DTT:4084;E1;0;0;0;1,IWD:0;1;ad031652643fff28;23.2;1;1;86031652504fff28;24.3$013529070819,,GPS:V;3;S23.1;W113.4;0;0,GSM:1;4;416;3;627A;A84B;-66#',
    );
    expect(records).toHaveLength(2);
    const [r, s] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-08-07T01:35:19.000Z');
    expect(r).toMatchObject({ valid: true, lat: 23.169866, lng: 113.450728, speed: 10, course: 255, altitude: 54, hdop: 0.79, satellites: 12 });
    expect(r.attributes).toMatchObject({ event: 0x1c, odometer: 18779, hours: (2 * 3600 + 8 * 60 + 17) * 1000, power: 12.66, battery: 0.58, ignition: true, out3: true, in1: false, temp0: 23.2, temp1: 24.3 });
    expect(s).toMatchObject({ valid: false, lat: -23.1, lng: -113.4, cells: [{ mcc: 416, mnc: 3, lac: 0x627a, cid: 0xa84b, rssi: -66 }] });
  });
  it('places a command result at the last fix', () => {
    const c = ctx();
    decode('*GS06,351535058659335,081234310719,,GPS:A;10;N23.169758;E113.450640;0;323;47;0.82#', c);
    const [r] = decode('*GS06,351535058659335,RST#', c).records!;
    expect(r).toMatchObject({ lat: 23.169758, valid: false, attributes: { result: 'RST' } });
  });
  it('decodes OBD answers and the G2 format', () => {
    const [o] = decode('*GS16,351535059439208,074558291015,,GPS:A;9;N31.935942;E35.867092;;345;921;1.03;1.59,OBD:04410C122003410D0F03411C0103410547037F011203411100').records!;
    expect(o.attributes).toMatchObject({ rpm: 0x1220 / 4, obdSpeed: 15, coolantTemp: 31, throttle: 0 });
    const [g] = decode('*GS02,358696043774648,GPS:230040;A;S1.166829;E36.934287;5;90;170116,STT:20;0,MGR:32755204,ADC:0;11.2;1;28.3;2;4.1,GFS:0;0').records!;
    expect(new Date(g.time!).toISOString()).toBe('2016-01-17T23:00:40.000Z');
    expect(g).toMatchObject({ lat: -1.166829, speed: 5, course: 90, attributes: { odometer: 32755204, power: 11.2, deviceTemp: 28.3, battery: 4.1 } });
  });
});

describe('gosafe binary', () => {
  it('decodes the header and the GPS, COT, ADC and DTT blocks', () => {
    const { deviceId, records } = protocol.decode!(Buffer.from(BINARY, 'hex'), ctx());
    expect(deviceId).toBe('351535053891099');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2024-12-05T13:08:25.000Z');
    expect(r).toMatchObject({ valid: true, satellites: 5, lat: -17.83022, lng: 31.136702, speed: 0, course: 0, altitude: 1550, hdop: 2.14 });
    expect(r.attributes).toMatchObject({ odometer: 137, power: 13.31, battery: 3.96, status: 1, ignition: true });
  });
});

describe('gosafe framer', () => {
  const next = (b: Buffer) => protocol.createFramer!().next(b);
  it('cuts text at # and binary between F8 bytes, un-escaping 1B 00 and 1B E3', () => {
    expect(next(Buffer.from('x*GS16,1#*GS'))).toEqual({ frame: Buffer.from('*GS16,1#'), consumed: 9 });
    expect(next(Buffer.from('f8061b001be302f8f8', 'hex'))).toEqual({ frame: Buffer.from('f8061bf802f8', 'hex'), consumed: 8 });
    expect(next(Buffer.from('*GS16,1'))).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next(Buffer.alloc(9000, 0x41))).toThrow(FrameError);
  });
});
