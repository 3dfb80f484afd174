import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gt30.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('gt30 replies', () => {
  it('sends nothing back (no answer is expected)', () => {
    expect(decode('$$005D3037811014    9955102834.000,A,3802.8629,N,02349.7163,E,0.00,,060117,,*13|1.3|26225BD').reply).toBeUndefined();
  });
});

describe('gt30 decoding', () => {
  it('reads the id, fix, hdop and the altitude before the checksum', () => {
    const r = decode('$$005D3037811014    9955102834.000,A,3802.8629,N,02349.7163,E,0.00,,060117,,*13|1.3|26225BD');
    expect(r.deviceId).toBe('3037811014');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2017, 0, 6, 10, 28, 34), valid: true, hdop: 1.3, altitude: 262, attributes: {} });
  });
  it('maps the alarm byte', () => {
    expect(decode('$$005E3037811014    9999\x03121909.000,A,3802.9133,N,02349.9354,E,0.00,,060117,,*18|1.8|264518B').records![0].attributes).toEqual({ alarm: 'sos' });
  });
});
