import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/pretrace.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '(864244029498838U1110A1509250653072238.1641N11401.9213E000196000000000406002990000000,&P195%,T1050,F14A5,R104C51E47B^30';

describe('pretrace replies', () => {
  it('sends nothing back to reports', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
  it('encodes commands with the XOR checksum', () => {
    const enc = (type: string, attributes: Record<string, string | number>) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();
    expect(enc('custom', { data: 'D21012' })).toBe('(123456789012345D21012^44)');
    expect(enc('positionPeriodic', { frequency: 300 })).toBe('(123456789012345D221300,300,,^69)');
  });
});

describe('pretrace decoding', () => {
  it('reads the report and its items', () => {
    const [f] = protocol.decode!(Buffer.from(MSG), ctx()).records!;
    expect(f).toMatchObject({
      time: Date.UTC(2015, 8, 25, 6, 53, 7), valid: true, speed: 0, course: 196, altitude: 0, satellites: 6, hdop: 0,
      attributes: { odometer: 0x40, rssi: 29, batteryLevel: 95, deviceTemp: 0x50 * 0.25, fuel1: 0x4a5 / 100, driverUniqueId: '4C51E47B' },
    });
  });
});
