import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/blackkite.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (session: Record<string, unknown>): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session });
const LOGIN = Buffer.from('01150003313131313131313131313131313131209836055605ba', 'hex');
const DATA = Buffer.from('0136000331313131313131313131313131313120523905563000010000000100000033000000003400004000004500004600005000005100009f76', 'hex');

describe('blackkite replies', () => {
  it('answers every main packet with 02 and the packet CRC (the Galileosky acknowledgement)', () => {
    const session = {};
    expect(protocol.decode!(LOGIN, ctx(session)).reply).toEqual(Buffer.from('0205ba', 'hex'));
    expect(protocol.decode!(DATA, ctx(session)).reply).toEqual(Buffer.from('029f76', 'hex'));
  });
});

describe('blackkite decoding', () => {
  it('reads the IMEI tag and the record tags as Galileosky does', () => {
    const session = {};
    expect(protocol.decode!(LOGIN, ctx(session))).toMatchObject({ deviceId: '111111111111111', records: [] });
    const r = protocol.decode!(DATA, ctx(session));
    expect(r.records).toHaveLength(1);
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2015, 8, 25, 12, 8, 50), valid: true, attributes: { status: 0, input: 0, output: 0, adc0: 0, adc1: 0 } });
  });
  it('frames by the length field and offers no commands', () => {
    expect(protocol.createFramer!().next(Buffer.concat([LOGIN, DATA.subarray(0, 5)]))?.frame).toEqual(LOGIN);
    expect(protocol.commands).toEqual([]);
  });
});
