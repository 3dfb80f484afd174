import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/trv.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {}, deviceId: '353456789012345' });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const FIX = 'TRVAP01080524A2232.9806N11404.9355E000.1061830323.8706000908000102,460,0,9520,3671';

describe('trv replies', () => {
  it('answers an IW login with the server time (UTC) and a TRV login with its header', () => {
    const iw = decode('IWAP00353456789012345');
    expect(iw.deviceId).toBe('353456789012345');
    expect(iw.reply?.toString()).toBe('IWBP00,20250222010203,0#');
    expect(decode('TRVAP00352121088015548').reply?.toString()).toBe('TRVBP00#');
  });
  it('answers reports with the next letter: AP01 -> BP01, YP14 -> ZP14, CP01 -> DP01', () => {
    expect(decode(FIX).reply?.toString()).toBe('TRVBP01#');
    expect(decode('IWAP03,06000908000102,5555,30').reply?.toString()).toBe('IWBP03#');
    expect(decode('TRVYP14080524A2232.9806N11404.9355E000.1061830323.870600090800010200011,460,0,9520,3671').reply?.toString()).toBe('TRVZP14#');
    expect(decode('TRVCP01,06000908000102').reply?.toString()).toBe('TRVDP01#');
    expect(decode('TRVAP14,1').reply?.toString()).toBe('TRVBP14,0.000,0.000#');
  });
  it('stays silent on the device\'s own answers', () => {
    expect(decode('IWAPXL,080835').reply).toBeUndefined();
    expect(decode('IWAP12,080835,+491773329827,+491773329826,+49306618438').reply).toBeUndefined();
  });
});

describe('trv decoding', () => {
  it('decodes a fix: km/h, course, gsm, satellites, battery, armed, cell', () => {
    const [r] = decode(FIX).records!;
    expect(new Date(r.time!).toISOString()).toBe('2008-05-24T06:18:30.000Z');
    expect(r).toMatchObject({ valid: true, speed: 0.1, course: 323.87, satellites: 9, attributes: { rssi: 60, batteryLevel: 80, armed: true, mode: 2 } });
    expect(r.lat).toBeCloseTo(22.54968, 5);
    expect(r.cells).toEqual([{ mcc: 460, mnc: 0, lac: 9520, cid: 3671 }]);
  });
  it('reads the alarm and the Wi-Fi list', () => {
    const [r] = decode('IWAP10080524A2232.9806N11404.9355E000.1061830323.8706000908000502,460,0,9520,3671,01,zhcn,00,HOME|74-DE-2B-44-88-8C|97&HOME1|74-DE-2B-44-88-8D|-60').records!;
    expect(r.attributes).toMatchObject({ alarm: 'sos', wifi: '74:de:2b:44:88:8c,97;74:de:2b:44:88:8d,-60' });
  });
  it('decodes cells, health values and steps at the last location', () => {
    const c = ctx();
    decode(FIX, c);
    const [cells] = decode('IWAP02,zh_cn,0,7,460,0,9520|3671|13,9520|3672|12,4,1|D8-24-BD-79-FA-1F|59', c).records!;
    expect(cells.cells).toEqual([{ mcc: 460, mnc: 0, lac: 9520, cid: 3671, rssi: 13 }, { mcc: 460, mnc: 0, lac: 9520, cid: 3672, rssi: 12 }]);
    expect(cells).toMatchObject({ valid: false, attributes: { wifi: 'd8:24:bd:79:fa:1f,59' } });
    expect(cells.lat).toBeCloseTo(22.54968, 5);
    expect(decode('IWAPHP,60,130,85,95,90,36.5,,,,,,,', c).records![0].attributes).toEqual({ heartRate: 60, pressureSystolic: 130, pressureDiastolic: 85, spo2: 95, bloodSugar: 90, temperature: 36.5 });
    expect(decode('IWAP03,06000908000102,5555,30', c).records![0].attributes).toMatchObject({ steps: 5555, batteryLevel: 80 });
  });
});

describe('trv framer', () => {
  it('cuts at #', () => {
    const f = protocol.createFramer!().next(Buffer.from('IWAP00353456789012345#IWAP'));
    expect(f).toEqual({ frame: Buffer.from('IWAP00353456789012345'), consumed: 22 });
  });
});
