import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/t622iridium.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config, session: {} });
const MSG = '01003501001c68b2cb1733303034333430363735343836353000016e000064b5f497020013234c5ea0ff1c365d0600b1482c010000cf0004';

describe('t622iridium replies', () => {
  it('sends nothing back (the gateway expects no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx()).reply).toBeUndefined();
  });
});

describe('t622iridium decoding', () => {
  it('reads the payload by the configured format (the default is the captures\' one)', () => {
    const want = [{ attributes: { event: 35 }, lat: -6.267316, lng: 106.771996, time: Date.UTC(2023, 6, 18, 2, 10, 8), valid: true, speed: 0 }];
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx({ format: '01,02,03,04,05,08' })).records).toEqual(want);
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx()).records).toEqual(want);
  });
});
