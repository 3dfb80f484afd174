import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/radshid.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const PACKET = '5200000001001e9bfd01e00100000000000000659d4c795151635b04df000000130001e275e00015896cf81e04d54a052401300e0f1e020b067f000000a33d0000000000000000000000001c6b000b29a5a514a5cdd9';

describe('radshid replies', () => {
  // Not confirmed by a public document: the acknowledgement (u32le 7, 0x82, packet tag, u32le payload
  // length, 0x01), as the widely used open-source server sends it.
  it('acknowledges a packet with its tag and payload length', () => {
    expect(decode(PACKET).reply!.toString('hex')).toBe('07000000820152000000' + '01');
  });
});

describe('radshid decoding', () => {
  it('reads an event: serial, time, speeds, io bits, position, the 0x07 extra', () => {
    const r = decode(PACKET);
    expect(r.deviceId).toBe(String(0x001e9bfd));
    const [f] = r.records!;
    expect(f).toEqual({
      time: 0x659d4c79 * 1000, speed: 81, valid: true, lat: 36.1327864, lng: 50.3633226, altitude: 1316, course: 304, satellites: 14,
      attributes: { event: 1, hours: 0, obdSpeed: 81, rpm: 1247, odometer: 19, charge: true, ignition: true, input: 0, pdop: 1.5 },
    });
    expect(f.attributes.driverUniqueId).toBeUndefined();
  });
  it('frames by the little-endian length', () => {
    expect(protocol.createFramer!().next(Buffer.from(PACKET.slice(0, 20), 'hex'))).toBeNull();
    expect(protocol.createFramer!().next(Buffer.from(PACKET + '00', 'hex'))!.consumed).toBe(PACKET.length / 2);
  });
});
