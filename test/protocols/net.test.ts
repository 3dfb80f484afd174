import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/net.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '@L03686090604017761712271020161807037078881037233751000000010F850036980A4000';

describe('net replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('net decoding', () => {
  it('reads the fixed-width report', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.deviceId).toBe('860906040177617');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2020, 9, 27, 16, 18, 7), valid: false, course: 0x0a4, attributes: { status: 1, odometer: (0x003698 * 1852) / 16, alarmCode: 0 } });
    expect(r.records![0].speed).toBeCloseTo((0x0f85 / 100) * 1.852, 9);
  });
});
