import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/v680.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('v680 replies', () => {
  it('answers nothing (the devices expect no answer)', () => {
    expect(decode('#353588102019155')).toEqual({ deviceId: '353588102019155' });
    expect(decode('#867967020910610#01234567890#1#0000#AUT#1#0500000000120000#114.036291,E,22.665795,N,111.00,000.00#111116#193333##').reply).toBeUndefined();
  });
});

describe('v680 decoding', () => {
  it('decodes decimal degrees and knots', () => {
    const r = decode('#867967020910610#01234567890#1#0000#AUT#1#0500000000120000#114.036291,E,22.665795,N,111.00,000.00#111116#193333##');
    expect(r.deviceId).toBe('867967020910610');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2016-11-11T19:33:33.000Z');
    expect(f).toMatchObject({ valid: true, lat: 22.665795, lng: 114.036291, course: 0, attributes: { event: 'AUT', user: '01234567890', packet: 1 } });
    expect(f.speed).toBeCloseTo(111 * 1.852, 6);
  });
  it('reads NMEA degrees when a value is out of range, hemispheres, and the first of several fixes', () => {
    const [f] = decode('#356823031166908#13001190527#0#0000#AUT#4#V#07136.4070,W,1040.0575,N,000.35,257#280813#142836#V#07136.4088,W,1040.0580,N,000.49,288#280813#142846##').records!;
    expect(f.lng).toBeCloseTo(-71.606783, 5);
    expect(f.lat).toBeCloseTo(10.667625, 5);
    expect(f).toMatchObject({ valid: false, course: 257 });
    expect(new Date(f.time!).toISOString()).toBe('2013-08-28T14:28:36.000Z');
  });
  it('ignores a report without a date', () => {
    expect(decode('#353588550032869##1#0000#AUT#01#72400401cd01a5#00000.0000,E,0000.0000,N,0.00,#000000#000000.000').records).toBeUndefined();
  });
});

describe('v680 framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts at ##', () => {
    expect(next('#1#2##\r\n#3')).toEqual({ frame: Buffer.from('#1#2'), consumed: 6 });
    expect(next('#1#2#')).toBeNull();
    expect(() => next('#'.repeat(1) + 'x'.repeat(3000))).toThrow(FrameError);
  });
});
