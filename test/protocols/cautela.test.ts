import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/cautela.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '20,010907000000,14,02,18,16.816667,96.166667,1325,S,*2E';

describe('cautela replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('cautela decoding', () => {
  it('reads a report', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2018, 1, 14, 13, 25), valid: true, lat: 16.816667, lng: 96.166667, attributes: { type: 20 } });
  });
});
