import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/cautela.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '20,010907000000,14,02,18,16.816667,96.166667,1325,S,*2E';

describe('cautela replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('cautela decoding', () => {
  it('reads type, id, date, decimal degrees, hhmm time and status', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx)).toEqual({
      deviceId: '010907000000',
      records: [{ time: Date.UTC(2014, 1, 18, 13, 25), valid: true, lat: 16.816667, lng: 96.166667, attributes: { event: 20, status: 'S' } }],
    });
  });
  it('yields nothing for other text and frames at line ends', () => {
    expect(protocol.decode!(Buffer.from('20,abc'), ctx)).toEqual({});
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\n20,`))?.frame.toString()).toBe(LINE);
  });
});
