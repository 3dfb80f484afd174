import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/solarpowered.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const REPORT = '7e850256553304728011003e811319130b0b11211f01a2e6be091fa0e10114cc1582020f00831000004e7400000044000000223819020c84114161726f6e34475630312d313931303331127e';

describe('solarpowered replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(REPORT).reply).toBeUndefined();
  });
});

describe('solarpowered decoding', () => {
  it('reads the position, alarm and counter tags', () => {
    const r = decode(REPORT);
    expect(r.deviceId).toBe('850256553304728');
    expect(r.records![0]).toEqual({ attributes: { deviceTemp: 20, battery: 4.08, rssi: 12 }, time: Date.UTC(2019, 10, 11, 17, 33, 31), lat: -27.453118, lng: 153.067745, valid: true, speed: 1, course: 21 });
  });
  it('frames as JT/T 808 does (7E .. 7E, un-escaped)', () => {
    expect(protocol.createFramer!().next(Buffer.from('7e01027d01037e', 'hex'))!.frame.toString('hex')).toBe('7e01027d037e');
  });
});
