import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/box.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('box replies', () => {
  it('confirms the end of a batch with A,<n> and CR', () => {
    expect(decode('E,1').reply?.toString()).toBe('A,1\r');
    expect(decode('E,25').reply?.toString()).toBe('A,25\r');
  });
  it('answers nothing to the hello and the log entries', () => {
    expect(decode('H,BT,358281002435893,081028142432,F5813D19,6D6E6DC2')).toEqual({ deviceId: '358281002435893' });
    expect(decode('L,081028142429,G,52.51084,-1.70849,0,170,0,1,0').reply).toBeUndefined();
  });
});

describe('box decoding', () => {
  it('decodes a log entry: km/h, trip, status bits and trailing items', () => {
    const [r] = decode('L,190416090926,G,21.46701,39.18655,0,280,86.62,7,5;A,0;D,0;T0,34.2;I,0;END,106,222,190416080509').records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-04-16T09:09:26.000Z');
    expect(r).toMatchObject({ lat: 21.46701, lng: 39.18655, speed: 0, course: 280, valid: false });
    expect(r.attributes).toMatchObject({ tripOdometer: 86620, event: 7, ignition: true, motion: false, t0: 34.2, end: '106,222,190416080509' });
  });
});

describe('box framer', () => {
  it('cuts at CR', () => {
    expect(protocol.createFramer!().next(Buffer.from('E,1\rL,'))).toEqual({ frame: Buffer.from('E,1'), consumed: 4 });
  });
});
