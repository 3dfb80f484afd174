import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/totem.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());
const encode = (type: string, attributes: Record<string, string> = {}, config = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config }).toString();

const F4 = '$$0108AA863835028447675|5004C0001710250234064214059828A058AE121010604000.600000320304.7772N10134.8238E11625B';
const F1 = '$$AE860990002922822|AA$GPRMC,051002.00,A,0439.26245,N,10108.94448,E,0.023,,140315,,,A*71|02.98|01.95|02.26|000000000000|20150314051003|13841157|105A3B1C|0000|0.0000|0005|5324';

describe('totem replies', () => {
  it('answers a format-4 report with $$0014AA, its serial and the XOR checksum', () => {
    expect(decode(F4).reply?.toString()).toBe('$$0014AA116201');
  });
  it('answers the older formats with ACK OK', () => {
    expect(decode(F1).reply?.toString()).toBe('ACK OK\r\n');
    expect(decode('$$8B862170017861566|AA180613080657|A|2237.1901|N|11402.1369|E|1.579|178|8.70|100000001000|13811|00000000|253162F5|00000000|0.0000|0014|2B16').reply?.toString()).toBe('ACK OK\r\n');
  });
});

describe('totem decoding', () => {
  it('decodes format 4: status bits, cell with mcc/mnc, km/h, odometer', () => {
    const { deviceId, records } = decode(F4);
    expect(deviceId).toBe('863835028447675');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2017-10-25T02:34:06.000Z');
    expect(r.lat).toBeCloseTo(3.079620, 5);
    expect(r.lng).toBeCloseTo(101.580397, 5);
    expect(r).toMatchObject({ satellites: 12, course: 106, speed: 40, hdop: 0.6 });
    expect(r.attributes).toMatchObject({ ignition: true, battery: 4.2, power: 14, odometer: 32000 });
  });
  it('decodes format 1: NMEA fix, dops, battery, power, cell', () => {
    const [r] = decode(F1).records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-03-14T05:10:02.000Z');
    expect(r).toMatchObject({ valid: true, hdop: 1.95, attributes: { pdop: 2.98, vdop: 2.26, battery: 3.84, power: 1157, odometer: 0 } });
    expect(r.cells).toEqual([{ mcc: 0, mnc: 0, lac: 0x105a, cid: 0x3b1c }]);
  });
  it('decodes an E2 RFID read', () => {
    const [r] = decode('$$0494E2123456789012345|150425223945,113.925525,22.55814,1122334455|38').records!;
    expect(r).toMatchObject({ lat: 22.55814, lng: 113.925525, attributes: { driverUniqueId: '1122334455' } });
  });
  it('ignores a report without a date', () => {
    expect(decode('$$BB862170017856731|AA$GPRMC,000000.00,V,0000.0000,N,00000.0000,E,000.0,000.0,000000,,,A*73|00.0|00.0|00.0|000000001000|20000000000000|13790000|00000000|00000000|00000000|0.0000|0007|8C23').records).toBeUndefined();
  });
});

describe('totem framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts at the announced length (hex or decimal) and skips bytes before $$', () => {
    expect(next('\r\n$$0025BB8620100372948613E$$00')?.frame.toString()).toBe('$$0025BB8620100372948613E');
    expect(next('$$19BB862010037294861 3E0$$')?.frame.length).toBe(0x19);
    expect(next('$$0025BB86201')).toBeNull();
    expect(() => next('$$0000BB8620100372948613E')).toThrow(FrameError);
  });
});

describe('totem commands', () => {
  it('encodes commands with length and XOR checksum, or as SMS text', () => {
    expect(encode('rebootDevice', { devicePassword: '000000' })).toBe('$$0020CF000000,0061D');
    expect(encode('engineStop')).toBe('$$0024CF000000,025,C,16A');
    expect(encode('positionSingle')).toBe('$$0020CF000000,01218');
    expect(encode('rebootDevice', {}, { sms: true })).toBe('*000000,006#');
    expect(() => encode('message')).toThrow();
  });
});
