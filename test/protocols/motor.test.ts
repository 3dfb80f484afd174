import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/motor.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '341200007E7E00007E7E020301803955352401161766210162090501010108191625132655351234567F12345F';

describe('motor replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('motor decoding', () => {
  it('reads the BCD report', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx())).toEqual({
      deviceId: '00001234',
      records: [{ attributes: { status: 0, rssi: 25 }, valid: true, lat: 39.92254, lng: 116.29436833333334, speed: 16.2, course: 90.5, time: Date.UTC(2001, 0, 1, 8, 19, 16) }],
    });
  });
});
