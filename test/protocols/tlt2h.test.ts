import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/tlt2h.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('tlt2h replies', () => {
  it('answers nothing (the trackers expect no acknowledgement)', () => {
    expect(decode('#357671030946351#V500#0000#AUTO#1\r\n#$GPRMC,223835.000,A,0615.3545,S,10708.5779,E,14.62,97.41,070313,,,D*70\r\n').reply).toBeUndefined();
  });
});

describe('tlt2h decoding', () => {
  it('decodes an RMC line: knots, status word as ignition', () => {
    const r = decode('#357671030946351#V500#0000#AUTO#1\r\n#$GPRMC,223835.000,A,0615.3545,S,10708.5779,E,14.62,97.41,070313,,,D*70\r\n');
    expect(r.deviceId).toBe('357671030946351');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2013-03-07T22:38:35.000Z');
    expect(f.lat).toBeCloseTo(-(6 + 15.3545 / 60), 9);
    expect(f.lng).toBeCloseTo(107 + 8.5779 / 60, 9);
    expect(f.speed).toBeCloseTo(14.62 * 1.852, 6);
    expect(f).toMatchObject({ valid: true, course: 97.41, attributes: { ignition: true } });
  });
  it('decodes several lines, the extended header (door, adc, power, battery, temperature) and cells', () => {
    const r = decode('#868105044690301#MT600+#0000#0#0#143#40#0#AUTO#1\r\n#072030fcf21$GPRMC,155616.00,A,4931.9210,N,09652.5290,W,53.80,90.00,150224,,,A*48\r\n');
    expect(r.records![0].attributes).toMatchObject({ door: false, adc1: 0, power: 14.3, battery: 4, temp1: 0, ignition: true });
    const many = decode('#123456789000001#V3338#0000#SMS#3\r\n#25ee0dff$GPRMC,083945.180,A,2233.4249,N,11406.0046,E,0.00,315.00,251207,,,A*6E\r\n#25ee0dff$GPRMC,083950.180,A,2233.4249,N,11406.0046,E,0.00,315.00,251207,,,A*6E');
    expect(many.records).toHaveLength(2);
    const cell = decode('#860186058100000#MT700#0000#AUTO#1\r\n#39#262,03,8CE6,A672$GPRMC,115419.00,V,,,,,,,050123,,,A*7D\r\n##\r\n');
    expect(cell.records![0]).toMatchObject({ valid: false, cells: [{ mcc: 262, mnc: 3, lac: 0x8ce6, cid: 0xa672 }], attributes: { battery: 3.9 } });
  });
  it('a Wi-Fi line: access points on the last known location; TOWED as the tow alarm', () => {
    const c = ctx();
    decode('#862255061752835#MT710#0000#AUTO#1\r\n#4106#$GPRMC,151410.00,A,3010.4103,N,08146.2728,W,,214.90,010324,,,A*58\r\n', c);
    const [f] = decode('#862255061983166#MT700NW#0000#TOWED#1\r\n#4502$WIFI,051550.00,A,-50,7683C2CBC0B0,-51,7683C29BC0B0,221123*78\r\n', c).records!;
    expect(f.attributes).toMatchObject({ wifi: '76:83:C2:CB:C0:B0*-50,76:83:C2:9B:C0:B0*-51', alarm: 'tow', battery: 4.502 });
    expect(f).toMatchObject({ valid: false, lat: expect.closeTo(30.17351, 4), time: Date.UTC(2023, 10, 22, 5, 15, 50) });
  });
  it('ignores a message whose header does not parse', () => {
    expect(decode('#861075026000000#\r\n#0000#AUTO#1\r\n#002c4968045$GPRMC,001556.00,A,3542.1569,N,13938.9814,E,7.38,185.71,160417,,,A*55\r\n')).toEqual({});
  });
});

describe('tlt2h framer', () => {
  it('cuts at ##CRLF', () => {
    const f = protocol.createFramer!();
    const msg = '#1#V500#0000#AUTO#1\r\n#$GPRMC,,V,,,,,,,,,,A*5C\r\n';
    expect(f.next(Buffer.from(`${msg}##\r\n#2`))).toEqual({ frame: Buffer.from(msg), consumed: msg.length + 4 });
    expect(f.next(Buffer.from(msg))).toBeNull();
    expect(() => f.next(Buffer.alloc(70_000, 0x41))).toThrow(FrameError);
  });
});
