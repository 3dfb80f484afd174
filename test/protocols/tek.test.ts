import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/tek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const FIX = '0501e304e00e76086107502100455111492c33332c3137303935342e302c353235352e393933344e2c30303833322e34333935572c322e312c3133342e382c322c302e30302c302e302c302e302c3234303931352c30362c3c45';

describe('tek replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(FIX).reply).toBeUndefined();
  });
});

describe('tek decoding', () => {
  it('reads the text fix of type 17', () => {
    const r = decode(FIX);
    expect(r.deviceId).toBe('861075021004551');
    expect(r.records![0]).toEqual({ time: Date.UTC(2015, 8, 24, 17, 9, 54), valid: true, lat: 52.93322333333334, lng: -8.540658333333333, hdop: 2.1, altitude: 134.8, course: 0, speed: 0, satellites: 6, attributes: {} });
  });
  it('reads ullage readings: temperature offset 30, source and ullage bits', () => {
    const [f] = decode('0501c2828e14750861075021004551047b00019700000082010f0a5b28770a5b2877').records!;
    expect(f.attributes).toEqual({ rssi1: 0x0f, temp1: 0x0a - 30, src1: 0x5b28 >> 10, ullage1: 0x5b28 & 0x3ff });
  });
  it('frames by the length byte and the two high bits of byte 15', () => {
    expect(protocol.createFramer!().next(Buffer.from(FIX + '05', 'hex'))!.consumed).toBe(FIX.length / 2);
  });
});
