import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/m2m.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const LOGIN = '235a3c2a2624215c287d70212a21254c7c6421220b0b0b';
const FIX = 'a6e12c2aaada4628326b2059576e30202a2fe85d20200b';

describe('m2m replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    const c: DecodeContext = { now: 0, transport: 'tcp', config: {}, session: {} };
    expect(protocol.decode!(Buffer.from(LOGIN, 'hex'), c)).toEqual({ deviceId: '358281006040160' });
  });
});

describe('m2m decoding', () => {
  it('takes the first message as the login and the next ones as fixes', () => {
    const c: DecodeContext = { now: 0, transport: 'tcp', config: {}, session: {} };
    protocol.decode!(Buffer.from(LOGIN, 'hex'), c);
    c.deviceId = '358281006040160';
    expect(protocol.decode!(Buffer.from(FIX, 'hex'), c).records).toEqual([{ time: Date.UTC(2012, 0, 6, 10, 10, 58), valid: true, lat: 38.13645833333333, lng: 57.92969333333333, speed: 0, satellites: 10, attributes: {} }]);
  });
  it('frames 23 bytes', () => {
    expect(protocol.createFramer!().next(Buffer.from(LOGIN + FIX, 'hex'))!.consumed).toBe(23);
  });
});
