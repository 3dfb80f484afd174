import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/nto.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '^NB,880002023090601,N00,050923,233519,V,N,2236.1994,E,11315.4645,5,0,000000000000,460:00:0:75217090,-04:00,,1693971319,31,2DA5';

describe('nto replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('nto decoding', () => {
  it('reads a report', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2023, 8, 5, 23, 35, 19), valid: false, speed: 5, course: 0, attributes: { type: 'N00', status: 0 } });
  });
});
