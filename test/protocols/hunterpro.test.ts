import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/hunterpro.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '>0002<$GPRMC,170559.000,A,0328.3045,N,07630.0735,W,0.73,266.16,200816,,,A77, s000078015180",0MD';

describe('hunterpro replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('hunterpro decoding', () => {
  it('reads the unit id and the RMC fix, keeping the device fields after it as status', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('0002');
    const rec = r.records![0];
    expect(rec).toMatchObject({ time: Date.UTC(2016, 7, 20, 17, 5, 59), valid: true, course: 266.16, attributes: { status: 'A77, s000078015180",0MD' } });
    expect(rec.speed).toBeCloseTo(0.73 * 1.852, 6);
    expect(rec.lat).toBeCloseTo(3.471742, 5);
    expect(rec.lng).toBeCloseTo(-76.501225, 5);
  });
  it('yields the id alone for a sentence without a fix, nothing for other text', () => {
    expect(protocol.decode!(Buffer.from('>0002<$GPRMC,bad'), ctx)).toEqual({ deviceId: '0002' });
    expect(protocol.decode!(Buffer.from('hello'), ctx)).toEqual({});
  });
  it('frames at line ends', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n>00`))?.frame.toString()).toBe(LINE);
  });
});
