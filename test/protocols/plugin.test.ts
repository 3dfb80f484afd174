import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/plugin.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

// The heartbeat answer `$$hb,1#` to every message follows the open-source server's implementation; no
// public Plugin document confirms it.
describe('plugin replies', () => {
  it('answers every message with $$hb,1#', () => {
    expect(decode('$$STATUS,60925,20190829123115,28.254151,-25.860605,0.0,0,0,-1,2,0.000,13699,0.00,0,0,28.4,23.4,0,0,0,0,0,0,0,0,0').reply?.toString()).toBe('$$hb,1#');
    expect(decode('$$hello').reply?.toString()).toBe('$$hb,1#');
  });
});

describe('plugin decoding', () => {
  it('reads lon before lat, status bits, the OBD block and events', () => {
    const [p] = decode('$$ALARM,801739,20190612121950,28.254067,-25.860494,12.5,90,15,7,2,2.5,3,0,0,0,21.5,-3.0,0,1500,40,0,0,0,0,123,124,+,11319,0').records!;
    expect(new Date(p.time!).toISOString()).toBe('2019-06-12T12:19:50.000Z');
    expect(p).toMatchObject({ lat: -25.860494, lng: 28.254067, speed: 12.5, course: 90, altitude: 15, satellites: 7, valid: true });
    expect(p.attributes).toMatchObject({ odometer: 2500, ignition: true, temp1: 21.5, temp2: -3, rpm: 1500, obdSpeed: 40, throttle: 12.3, power: 12.4, event: 11319, alarm: 'hardBraking' });
  });
});
