import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ndtpv6.ts';
import { crc16Modbus } from '../../protocols/binary.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const CONNECT = '7e7e3b000200334202000000000000000064000100000000000600020002034f0c0200000400000000000033353135313330353131393430353532353030323632373237343836363500';

describe('ndtpv6 replies', () => {
  // Not confirmed by a public document at hand: the service result layout, as the widely used open-source server sends it.
  it('answers the connection request with a service result, CRC-16/MODBUS over its content', () => {
    const reply = protocol.decode!(Buffer.from(CONNECT, 'hex'), ctx()).reply!;
    const content = reply.subarray(15);
    expect(reply.subarray(0, 6).toString('hex')).toBe('7e7e0e000200');
    expect(reply.readUInt16BE(6)).toBe(crc16Modbus(content));
    expect(content.toString('hex')).toBe('0000' + '00000000' + '00000000' + '00000000');
  });
});

describe('ndtpv6 decoding', () => {
  it('takes the device id and version from the connection request', () => {
    expect(protocol.decode!(Buffer.from(CONNECT, 'hex'), ctx())).toMatchObject({ deviceId: '3151', records: [{ attributes: { versionFw: '6.2' } }] });
  });
  it('frames by the length after the signature', () => {
    expect(protocol.createFramer!().next(Buffer.from(CONNECT + '7e', 'hex'))!.consumed).toBe(CONNECT.length / 2);
  });
});
