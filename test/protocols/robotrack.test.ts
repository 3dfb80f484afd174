import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/robotrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const ID = '00524f424f545241434b00000000000000383638323034303032323533343136313233343536373839303132312e313261000000312e353761000000312e3030000000003e';

// The identification answer `80 01 66` follows the open-source server's implementation; no public
// RoboTrack document confirms it.
describe('robotrack', () => {
  it('answers the identification with 80 01 66', () => {
    const r = protocol.decode!(Buffer.from(ID, 'hex'), ctx());
    expect(r.deviceId).toBe('868204002253416');
    expect(r.reply?.toString('hex')).toBe('800166');
  });
  it('decodes a GPS message', () => {
    const [p] = protocol.decode!(Buffer.from('03e020bb5a034409034862120210a9e105000000000000b9', 'hex'), ctx()).records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-03-28T04:58:08.000Z');
    expect(p).toMatchObject({ valid: true, lat: 50.938883, lng: 34.75924, speed: 16, satellites: 9 });
    expect(p.attributes).toMatchObject({ rssi: 2, motion: true, charge: true, in1: false, batteryLevel: 100, deviceTemp: 5 });
  });
  it('frames by the size of each type', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from(`${ID}03`, 'hex'))?.consumed).toBe(69);
    expect(f.next(Buffer.from('03e020', 'hex'))).toBeNull();
  });
});
