import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/astra.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const K = '4b00320524c1da58769e6d0322617effe874024453065600a800000100080000643e0000000000000000000000069500e7bb';
const X = '58003201052196881ae0ce1f00000000000353d3d49e0010200000093d2353d3d49d031b934afffb036c0000a0000000e0eb';

describe('astra replies', () => {
  it('acknowledges every message with 0x06', () => {
    expect(decode(K).reply!.toString('hex')).toBe('06');
    expect(decode(X).reply!.toString('hex')).toBe('06');
    expect(decode('41000500ff').reply!.toString('hex')).toBe('06');
  });
});

describe('astra decoding', () => {
  it('reads a K record', () => {
    expect(decode(K)).toEqual({
      deviceId: '862950025797534',
      reply: Buffer.from([6]),
      records: [
        {
          valid: true, lat: 52.58483, lng: -1.543166, time: Date.UTC(2016, 4, 3, 6, 23, 18), speed: 0, course: 336, altitude: 120, satellites: 5,
          attributes: { event: 1, status: 8, io1: 0, adc1: 0, batteryRaw: 100, powerRaw: 62, tripOdometer: 0, rssi: 9 },
        },
      ],
    });
  });
  it('reads an X record with supply, battery level and a fix', () => {
    const [f] = decode(X).records!;
    expect(decode(X).deviceId).toBe('860873041761486');
    expect(f).toEqual({
      valid: true, time: Date.UTC(2024, 6, 30, 16, 17, 33), lat: 52.138826, lng: -0.326804, speed: 0, course: 320, altitude: 0,
      attributes: { index: 31, event: 1056768, status: 9, power: 12.2, batteryLevel: 35, tripOdometer: 0 },
    });
  });
  it('frames on the whole-message length after the letter', () => {
    const bytes = Buffer.from(K, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(bytes.subarray(0, 10))).toBeNull();
    expect(framer.next(Buffer.concat([bytes, bytes]))).toEqual({ frame: bytes, consumed: bytes.length });
  });
});
