import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/svias.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

// The answer `@` to every message follows the open-source server's implementation; no public SVIAS
// document confirms it.
describe('svias', () => {
  it('answers @ and decodes the report', () => {
    const r = protocol.decode!(Buffer.from('[7041,3041,8629,20856286,710,60618,201027,-92268040,-371346250,7994,31844,38271,17,1,0,0,13416,100,0,0,5089'), ctx());
    expect(r.reply?.toString()).toBe('@');
    expect(r.deviceId).toBe('20856286');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-06-06T20:10:27.000Z');
    expect(p.lat).toBeCloseTo(-(9 + 22.6804 / 60), 6);
    expect(p).toMatchObject({ speed: 79.94, course: 318.44, valid: true });
    expect(p.attributes).toEqual({ odometer: 3827100, input: 17, output: 1, ignition: true, power: 13.416, batteryLevel: 100, rssi: 0, alarm: 'sos' });
  });
  it('frames at ]', () => {
    expect(protocol.createFramer!().next(Buffer.from('[7041,1]['))?.frame.toString()).toBe('[7041,1');
  });
});
