import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/stl060.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('stl060', () => {
  it('decodes the older layout; no answer', () => {
    const r = decode('$1,357804048043099,D001,AP29AW0963,23/02/14,14:06:54,17248488N,078342226E,0.08,193.12,1,1,1,0,55,A');
    expect(r.deviceId).toBe('357804048043099');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2014-02-23T14:06:54.000Z');
    expect(p.lat).toBeCloseTo(17.41415, 5);
    expect(p.lng).toBeCloseTo(78.57038, 5);
    expect(p.attributes).toEqual({ odometer: 1, ignition: true, input: 1, fuelLevel: 55 });
  });
  it('decodes the newer layout with RFID, temperature and outputs', () => {
    const [p] = decode('$1,357804047969310,D001,AP29AW0963,01/01/13,13:24:47,1723.9582N,07834.0945E,00100,010,1,0,0,0,1,0008478660,1450,40,34,0,0,1,A').records!;
    expect(p.attributes).toEqual({ charge: true, ignition: false, input: 1, odometer: 1450, temp1: 40, fuelLevel: 34, acceleration: false, output: 2, driverUniqueId: '0008478660' });
  });
});
