import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ardi01.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '013227003054776,20141010052719,24.4736042,56.8445807,110,289,40,7,5,78,-1';

describe('ardi01 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('ardi01 decoding', () => {
  it('reads a report', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx())).toEqual({
      deviceId: '013227003054776',
      records: [{ time: Date.UTC(2014, 9, 10, 5, 27, 19), valid: true, lat: 56.8445807, lng: 24.4736042, speed: 110, course: 289, altitude: 40, satellites: 7, attributes: { event: 5, batteryLevel: 78, temp1: -1 } }],
    });
  });
});
