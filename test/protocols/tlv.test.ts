import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/tlv.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const arg = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]).toString('hex');

describe('tlv replies', () => {
  // Not confirmed by a public document: 0A and 0C echoed with a NUL, as the widely used open-source server answers.
  it('answers 0A and 0C with their type and a NUL, other messages not', () => {
    expect(decode('30410f383630323437303330303934333931')).toEqual({ deviceId: '860247030094391', reply: Buffer.from('0A\0') });
    expect(decode('30420f3836303234373033303039343339310131').reply).toBeUndefined();
  });
});

describe('tlv decoding', () => {
  it('reads a 0E position', () => {
    const msg = Buffer.from('0E').toString('hex') + ['860247030094391', '1700000000', '7', '30.5', '50.25', '36', '90', '8'].map(arg).join('');
    expect(decode(msg)).toEqual({ deviceId: '860247030094391', records: [{ time: 1_700_000_000_000, valid: true, lat: 50.25, lng: 30.5, speed: 36, course: 90, satellites: 8, attributes: {} }] });
  });
});
