import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/cityeasy.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const encode = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '1', now: 0, config: {} }).toString('hex');
const REPORT = '5454006135200000000001000332303134313131303039353430392c412c342c4e2c32322e3533373232382c452c3131342e3032323737342c302e312c312e392c35302e363b3436302c302c31303137332c343635322c34310000000b63130d0a';

describe('cityeasy replies', () => {
  it('sends nothing back to reports or status packets (the devices expect no answer)', () => {
    expect(decode(REPORT).reply).toBeUndefined();
    expect(decode('54540019357557024902010002520704100000000bbe700d0a')).toEqual({ deviceId: '357557024902015' });
  });
});

describe('cityeasy decoding', () => {
  it('reads a location report with its cell; the IMEI gets its Luhn digit', () => {
    const r = decode(REPORT);
    expect(r.deviceId).toBe('352000000000012');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2014, 10, 10, 9, 54, 9), valid: true, satellites: 4, lat: 22.537228, lng: 114.022774, speed: 0.1, hdop: 1.9, altitude: 50.6,
      cells: [{ mcc: 460, mnc: 0, lac: 10173, cid: 4652 }], attributes: {},
    });
  });
});

describe('cityeasy commands', () => {
  it('frames commands with the KERMIT CRC', () => {
    expect(encode('setTimezone', { timezone: 'GMT+6' })).toBe('5353001100080001680000000b60820d0a');
    expect(encode('positionStop').slice(0, 16)).toBe('5353001000050000');
    expect(() => encode('engineStop')).toThrow();
  });
});
