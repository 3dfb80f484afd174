import { createCipheriv } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/at2000.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const KEY = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
const IV = Buffer.alloc(16, 7);

function deviceId(first: Buffer): Buffer {
  const head = Buffer.alloc(17);
  head[0] = 0x01;
  head[1] = 0x01;
  head.writeUIntLE(47, 2, 3);
  return Buffer.concat([head, Buffer.from('357454071627598'), IV, first]);
}

function record(): Buffer {
  const b = Buffer.alloc(63);
  b.writeBigInt64LE(1484220410n, 4);
  b.writeFloatLE(41.5, 12);
  b.writeFloatLE(14.25, 16);
  b.writeFloatLE(511, 20);
  b.writeFloatLE(36, 24);
  b.writeFloatLE(90, 28);
  b.writeUInt16LE(246, 50);
  b.writeUInt16LE(12500, 54);
  b[58] = 20; // rssi
  b[60] = 5; // battery
  b[61] = 0xfb; // -5 °C
  b[62] = 9; // satellites
  return b;
}

// The 0x88 track request follows the open-source server's implementation; no public AT2000 document confirms it.
describe('at2000', () => {
  it('asks for the track (0x88 block) after the device id', () => {
    const r = protocol.decode!(deviceId(Buffer.alloc(16)), ctx());
    expect(r.deviceId).toBe('357454071627598');
    expect(r.reply?.toString('hex')).toBe('88' + '00'.repeat(15));
  });
  it('decrypts track records chained on from the device id message', () => {
    const c = ctx();
    const cipher = createCipheriv('aes-128-cbc', KEY, IV).setAutoPadding(false);
    const first = cipher.update(Buffer.alloc(16));
    protocol.decode!(deviceId(first), c);
    const plain = Buffer.concat([record(), Buffer.alloc(1)]); // 64 bytes: 4 blocks
    const data = cipher.update(plain);
    const head = Buffer.alloc(16);
    head[0] = 0x89;
    head.writeUIntLE(64, 1, 3);
    const [p, ...rest] = protocol.decode!(Buffer.concat([head, data]), c).records!;
    expect(rest).toEqual([]);
    expect(new Date(p.time!).toISOString()).toBe('2017-01-12T11:26:50.000Z');
    expect(p).toMatchObject({ lat: 41.5, lng: 14.25, altitude: 511, speed: 36, course: 90, satellites: 9 });
    expect(p.attributes).toEqual({ adc1: 246, adc2: 0, power: 12.5, rssi: 20, battery: 5, temp1: -5 });
  });
  it('frames by the header length, padded to blocks for the track', () => {
    const f = protocol.createFramer!();
    expect(f.next(deviceId(Buffer.alloc(16)))?.consumed).toBe(64);
    const track = Buffer.alloc(80);
    track[0] = 0x89;
    track[1] = 63;
    expect(f.next(track.subarray(0, 79))).toBeNull();
    expect(f.next(track)?.consumed).toBe(80);
  });
});
