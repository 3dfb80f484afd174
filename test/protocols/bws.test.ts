import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/bws.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const REPORT = '0005e82a1c011e66ed71f7ff813ae0feffb34c0702025d00992a000101c2c800001c1d1617';

// The acknowledgement layout (0x40 ACK / 0x41 NACK with the message index and a CRC-8/MAXIM) and the
// action command follow the open-source server that documents this protocol; the command bytes match
// its published encoder test. No vendor document confirms the acknowledgement.
describe('bws replies', () => {
  it('acknowledges a report with its device type, id, 0x40, index and CRC-8/MAXIM', () => {
    expect(protocol.decode!(Buffer.from(REPORT, 'hex'), ctx()).reply!.toString('hex')).toBe('0005e82a1c401e8c');
  });
  it('refuses an unknown device with 0x41 and the same index', () => {
    const c = ctx();
    protocol.decode!(Buffer.from(REPORT, 'hex'), c);
    const nack = protocol.refuse!(c)!;
    expect(nack.toString('hex')).toBe('0005e82a1c411e48');
  });
  it('acknowledges a keep-alive, which carries no fix', () => {
    expect(protocol.decode!(Buffer.from('0005e82a1c3f07', 'hex'), ctx())).toEqual({ deviceId: '05e82a1c', reply: Buffer.from('0005e82a1c40078d', 'hex') });
  });
});

describe('bws commands', () => {
  it('encodes engine stop and resume as the action message', () => {
    const e = (type: string) => protocol.encode!({ type, attributes: {} }, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex');
    expect(e('engineStop')).toBe('001234567842000073');
    expect(e('engineResume')).toBe('00123456784200012d');
    expect(() => e('custom')).toThrow();
  });
});

describe('bws decoding', () => {
  it('reads a report', () => {
    expect(protocol.decode!(Buffer.from(REPORT, 'hex'), ctx()).records).toEqual([
      {
        time: Date.UTC(2024, 8, 20, 13, 0, 39), valid: false, lat: (0xff813ae0 - 2 ** 32) / 360000, lng: (0xfeffb34c - 2 ** 32) / 360000, satellites: 7, speed: 2, course: 60.5,
        attributes: { event: 1, power: 15.3, battery: 4.2, io1: 1, odometer: 11540000, hours: 1680000, deviceTemp: 29, rssi: 22 },
      },
    ]);
  });
});
