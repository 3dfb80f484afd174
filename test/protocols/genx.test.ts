import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/genx.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config, session: {} });
const COLUMNS = '1,2,3,4,13,17,10,23,27,11,7,8,46,56,59,70,74,75,77,89,90,93,99,107,112,113,114,176,175,178,181,182';
const LINE = '000036035855,04/16/2017 21:19:07,45.46485,-73.65424,24,32,61:213,342.51,157,ON,20984,0,12,O,18,0.000,95.0,24.0,1990,64.0894,0.0219,316.009,71,0.00,16.78,5.10,NA,U,UUU,0,-95.0,U';

describe('genx replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx({ reportColumns: COLUMNS })).reply).toBeUndefined();
  });
});

describe('genx decoding', () => {
  it('reads the columns the report configuration names', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx({ reportColumns: COLUMNS }))).toEqual({
      deviceId: '000036035855',
      records: [{ valid: true, time: Date.UTC(2017, 3, 16, 21, 19, 7), lat: 45.46485, lng: -73.65424, speed: 24, course: 32, altitude: 157 * 0.3048, satellites: 12, attributes: { odometer: 342510, ignition: true } }],
    });
  });
  it('reads id, time and position alone by default', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx()).records).toEqual([{ valid: true, time: Date.UTC(2017, 3, 16, 21, 19, 7), lat: 45.46485, lng: -73.65424, attributes: {} }]);
  });
  it('frames one report a line', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n0000`))!.frame.toString()).toBe(LINE);
  });
});
