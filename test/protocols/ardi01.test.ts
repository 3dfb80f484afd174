import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ardi01.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '013227003054776,20141010052719,24.4736042,56.8445807,110,289,40,7,5,78,-1';

describe('ardi01 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('ardi01 decoding', () => {
  it('reads id, time, longitude before latitude, speed, course, altitude, satellites, event and battery', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('013227003054776');
    expect(r.records).toEqual([
      { time: Date.UTC(2014, 9, 10, 5, 27, 19), valid: true, lat: 56.8445807, lng: 24.4736042, speed: 110, course: 289, altitude: 40, satellites: 7, attributes: { event: 5, batteryLevel: 78 } },
    ]);
  });
  it('keeps a temperature other than -1 as temp1; yields nothing for other text', () => {
    expect(protocol.decode!(Buffer.from(LINE.replace(/-1$/, '23')), ctx).records![0].attributes.temp1).toBe(23);
    expect(protocol.decode!(Buffer.from('hello'), ctx)).toEqual({});
  });
  it('frames at line ends', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n0132`))?.frame.toString()).toBe(LINE);
  });
});
