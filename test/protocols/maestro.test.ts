import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/maestro.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('maestro', () => {
  it('decodes a report (mph, miles); no answer', () => {
    const r = protocol.decode!(Buffer.from('@123451234512345,702,M2MGTW,1,14.7,30,0,1,11/10/10,09:09:09,22.222222,114.141414,45.6,25.12,160.0,8,1,25!'), ctx());
    expect(r.deviceId).toBe('123451234512345');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2011-10-10T09:09:09.000Z');
    expect(p).toMatchObject({ valid: true, lat: 22.222222, lng: 114.141414, altitude: 45.6, course: 160, satellites: 8, hdop: 1 });
    expect(p.speed).toBeCloseTo(25.12 * 1.609344, 6);
    expect(p.attributes).toEqual({ battery: 14.7, rssi: 30, charge: false, ignition: true, odometer: 40234 });
  });
  it('frames at !, and decodes a frame that starts with the NUL some firmware sends after the !', () => {
    expect(protocol.createFramer!().next(Buffer.from('@1,2,X,1!\0@'))?.frame.toString()).toBe('@1,2,X,1!');
    const frame = Buffer.from('\0@353893040202807,601,UPV-02,0,13.4,10,0,0,16/11/04,17:21:14,0.352793,32.647927,0,0,0,0,99,0.000,0!');
    expect(protocol.decode!(frame, ctx()).deviceId).toBe('353893040202807');
  });
});
