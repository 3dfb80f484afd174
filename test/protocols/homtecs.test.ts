import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/homtecs.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });

describe('homtecs', () => {
  it('decodes a fix line; no answer', () => {
    const r = protocol.decode!(Buffer.from('MDS0001_R6d1821f7,170323,143621.00,06,5105.29914,N,11400.52675,W,0.223,198.41,1,2.12,1042.3'), ctx());
    expect(r.deviceId).toBe('MDS0001');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2017-03-23T14:36:21.000Z');
    expect(p).toMatchObject({ satellites: 6, valid: true, course: 198.41, hdop: 2.12, altitude: 1042.3 });
    expect(p.lng).toBeCloseTo(-114.008779, 6);
  });
  it('names the device from a line without a fix', () => {
    expect(protocol.decode!(Buffer.from('MDS0001_R6d1821f7,170323,143601.00,04,,,,,,,,,'), ctx())).toEqual({ deviceId: 'MDS0001' });
  });
});
