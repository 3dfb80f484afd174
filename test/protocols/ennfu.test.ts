import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ennfu.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('ennfu replies', () => {
  it('sends nothing back, to reports and heartbeats alike', () => {
    expect(decode('Ennfu:HeartBeat,354679095321652')).toEqual({ deviceId: '354679095321652' });
  });
});

describe('ennfu decoding', () => {
  it('reads a report', () => {
    const [f] = decode('Ennfu:354679095321652,041504.00,A,3154.86654,N,11849.08737,E,0.053,,080121,20,3.72,21.4,V0.01').records!;
    expect(f).toMatchObject({ time: Date.UTC(2021, 0, 8, 4, 15, 4), valid: true, course: 0, attributes: { rssi: 20, battery: 3.72, batteryLevel: 21.4, versionFw: 'V0.01' } });
    expect(f.speed).toBeCloseTo(0.053 * 1.852, 9);
  });
});
