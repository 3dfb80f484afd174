import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/teratrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const report = (ack: string) =>
  Buffer.from(JSON.stringify({ MDeviceID: '022043756090', DateTime: '2022-03-09 10:56:01', Latitude: '-6.846451', Longitude: '39.316324', Speed: '90', Mileage: '12', LockOpen: '0', CardNo: '60000644', LowPower: '1', Power: '79', GSM: '16', IMEI: '860922043756090', MessageAck: ack }));

// The answer `{01}` to a report asking for one follows the open-source server's implementation; no
// public TeraTrack document confirms it.
describe('teratrack', () => {
  it('answers {01} when the report asks for an answer', () => {
    expect(protocol.decode!(report('1'), ctx()).reply?.toString()).toBe('{01}');
    expect(protocol.decode!(report('0'), ctx()).reply).toBeUndefined();
  });
  it('decodes the report', () => {
    const r = protocol.decode!(report('0'), ctx());
    expect(r.deviceId).toBe('022043756090');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2022-03-09T10:56:01.000Z');
    expect(p).toMatchObject({ lat: -6.846451, lng: 39.316324, speed: 90 });
    expect(p.attributes).toEqual({ odometer: 12, batteryLevel: 79, rssi: 16, lock: true, driverUniqueId: '60000644', alarm: 'lowPower', imei: '860922043756090' });
  });
});
