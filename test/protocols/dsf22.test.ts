import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dsf22.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const ONE = '4642000101a8ee5f0eca5ff421b33f524e32610401';

describe('dsf22 replies', () => {
  // Not confirmed by a public document: the one-byte 0x01 acknowledgement, as the widely used open-source server sends it.
  it('answers every packet with 01', () => {
    expect(decode(ONE).reply!.toString('hex')).toBe('01');
  });
});

describe('dsf22 decoding', () => {
  it('reads the records with their status bits', () => {
    const r = decode(ONE);
    expect(r.deviceId).toBe('256');
    expect(r.records![0]).toMatchObject({ valid: true, time: 0x4e523fb3 * 1000, speed: 0x32, attributes: { ignition: true, in1: false, out1: false, status: 1 } });
    expect(r.records![0].lat).toBeCloseTo(0x0e5feea8 / 1e7, 7);
  });
  it('frames by the record count', () => {
    const three = '4642000103a8ee5f0eca5ff421b33f524e326104010216600efc92f421b63f524e366104013238600e1ebef421b93f524e35610401';
    expect(protocol.createFramer!().next(Buffer.from(three + '46', 'hex'))!.consumed).toBe(three.length / 2);
    expect(decode(three).records).toHaveLength(3);
  });
});
