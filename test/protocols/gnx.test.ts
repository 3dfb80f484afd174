import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gnx.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('gnx replies', () => {
  it('sends nothing back (no answer is expected)', () => {
    expect(decode('$GNX_DIO,863071015071563,110,1,155627,121214,151244,121214,1,08.878321,N,076.643154,E,0,0,0,0,0,0,GNX01001,B1*').reply).toBeUndefined();
  });
});

describe('gnx decoding', () => {
  it('reads the fix time in India time, history flag and the card of a MIF report', () => {
    const [f] = decode('$GNX_MIF,865733022354161,143,1,172642,180316,172642,180316,1,13.034581,N,080.234521,E,0,05396274,ROUTE_2#########,Deo ############,GNX04008,B0*').records!;
    expect(f).toEqual({ time: Date.UTC(2016, 2, 18, 11, 56, 42), valid: true, lat: 13.034581, lng: 80.234521, attributes: { type: 'MIF', archive: true, driverUniqueId: '05396274' } });
  });
  it('yields nothing for a report without a fix', () => {
    expect(decode('$GNX_LOC,865733022354161,139,0,142838,160316,142825,160316,0,000000000,N,0000000000,E,000,0.00,00,48,0,e,C,2,000000.0,000000.0,GNX04008,BB*')).toEqual({});
  });
});
