import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/hunterpro.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '>0002<$GPRMC,170559.000,A,0328.3045,N,07630.0735,W,0.73,266.16,200816,,,A77, s000078015180",0MD';

describe('hunterpro replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('hunterpro decoding', () => {
  it('reads a report', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2016, 7, 20, 17, 5, 59), valid: true, course: 266.16 });
  });
});
