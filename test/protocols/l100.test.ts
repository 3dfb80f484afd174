import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/l100.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

const NORMAL = 'ATL,NP,868004029750174,$GPRMC,062943,A,2533.6719,N,09154.3203,E,10,179,311218,,,*39,#01111011000000,0,0,0,934.82,27.13,4.0,25,405,755,15af,974b,0,0,0,ATL';

describe('l100 replies', () => {
  it('answers a GPRMC report with the byte 0x01', () => {
    expect(decode(NORMAL).reply?.toString('hex')).toBe('01');
  });
  it('answers the OBD login (type 01) with @<imei>,00,<index>,* and the XOR of the answer', () => {
    const r = decode('L,ATL,866795030477952,01,0035,');
    expect(r.deviceId).toBe('866795030477952');
    expect(r.records).toBeUndefined();
    expect(r.reply?.toString('latin1')).toBe('@866795030477952,00,35,*\x50');
  });
});

describe('l100 decoding', () => {
  it('decodes a GPRMC report with status, odometer, temperature, battery and cell', () => {
    const [r] = decode(NORMAL).records!;
    expect(new Date(r.time!).toISOString()).toBe('2018-12-31T06:29:43.000Z');
    expect(r).toMatchObject({ valid: true, course: 179, attributes: { status: '01111011000000', odometer: 934820, temp1: 27.13, battery: 4, adc1: 0 } });
    expect(r.speed).toBeCloseTo(18.52, 6);
    expect(r.cells).toEqual([{ mcc: 405, mnc: 755, lac: 0x15af, cid: 0x974b, rssi: 25 }]);
  });
  it('decodes OBD fixes and OBD data at the last fix', () => {
    const c = ctx();
    const [f] = decode('H,ATL,866795030478513,02,0981,054448,230318,A,28.633486;N,77.222595;E,0,154,1.14,4.2,18,404,4,88,ad7b,#1031,0,ATL,', c).records!;
    expect(f).toMatchObject({ lat: 28.633486, lng: 77.222595, course: 154, attributes: { ignition: true, charge: true, odometer: 1140, battery: 4.2 } });
    expect(f.attributes.alarm).toBeUndefined();
    const [d] = decode('L,ATLOBD,866795030478513,03,7429,143344,130918,CAN,0104:3C,0105:84,010C:0F98,010D:22,0111:28', c).records!;
    expect(d).toMatchObject({ valid: false, lat: 28.633486, attributes: { coolantTemp: 92, rpm: 998, obdSpeed: 34 } });
  });
  it('decodes the short format with its alarm letter', () => {
    const [r] = decode('ATL,L,868345038171963,P,201218,093016,A,025.067144,N,055.144833,E,000.0,GPS,3939,424,03,00405,008834').records!;
    expect(r).toMatchObject({ lat: 25.067144, attributes: { alarm: 'sos', battery: 3.939 }, cells: [{ mcc: 424, mnc: 3, lac: 405, cid: 0x8834 }] });
  });
});

describe('l100 framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('ends frames at @, at *<checksum>, at the closing ATL, or between 0x01 and 0x02', () => {
    expect(next('ATL,L,1,N@x')).toEqual({ frame: Buffer.from('ATL,L,1,N'), consumed: 10 });
    expect(next('L,ATL,1,01,0035,*(L')).toEqual({ frame: Buffer.from('L,ATL,1,01,0035,'), consumed: 18 });
    expect(next(`${NORMAL}\r\nATL`)?.frame.toString()).toBe(NORMAL);
    expect(next(' \x01ATL1,$GPRMC,1*75,#0ATL\x02z')?.frame.toString()).toBe('ATL1,$GPRMC,1*75,#0ATL');
    expect(next('L,ATL,1,01,0035,*')).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('x'.repeat(3000))).toThrow(FrameError);
  });
});
