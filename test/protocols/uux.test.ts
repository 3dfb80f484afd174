import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/uux.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const GENERAL = '81910c5a9031395533443630363631051e061a1e07397079712a000000000000413133333135332e333939304e30333531322e393837324530303031303030303000000200000000001f303036323236303030303030303030300000ffff';

describe('uux replies', () => {
  // Not confirmed by a public document: the ACK layout, as the widely used open-source server sends it.
  it('acknowledges other messages when the version asks for answers; nothing to reports and keep-alives', () => {
    expect(decode('81918c0ba031395533443630363631051e061a1e').reply!.toString('hex')).toBe('8191' + '0c01d0');
    expect(decode(GENERAL).reply).toBeUndefined();
    expect(decode('81910b01ff')).toEqual({});
  });
});

describe('uux decoding', () => {
  it('reads a general report, the year taken from now', () => {
    const r = decode(GENERAL);
    expect(r.deviceId).toBe('19U3D60661');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2025, 4, 30, 6, 26, 30), valid: true, satellites: 13, speed: 0, course: 100, attributes: { odometer: 2, rssi: 31, companyId: '006226', tripId: 0 } });
    expect(r.records![0].lat).toBeCloseTo(31 + 53.399 / 60, 9);
  });
});
