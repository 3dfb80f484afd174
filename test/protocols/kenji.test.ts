import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/kenji.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '>C800000,M005004,O0000,I0002,D124057,A,S3137.2783,W05830.2978,T000.0,H254.3,Y240116,G06*17';

describe('kenji replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('kenji decoding', () => {
  it('reads a report', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2016, 0, 24, 12, 40, 57), valid: true, course: 254.3, satellites: 6, attributes: { alarm: 'sos', output: 0, input: 2 } });
  });
});
