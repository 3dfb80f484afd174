import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/siwi.ts';
import { DecodeError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());
const REPORT = '$SIWI,868957040777510,13,E,,,0,1,1,24.15,1118097,0,18,A,16.080666,80.331451,0,29,142451,180221,24,1,15,5,4282,2269,0,0,0,3,0,1.0,1.6CPASF_6.60,0!';

describe('siwi replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(REPORT).reply).toBeUndefined();
  });
});

describe('siwi decoding', () => {
  it('reads a report: India time to UTC, km/h, battery mV, adc / 100, sensors', () => {
    const r = decode(REPORT);
    expect(r.deviceId).toBe('868957040777510');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2021, 1, 18, 14 - 5, 24 - 30, 51),
      valid: true,
      lat: 16.080666,
      lng: 80.331451,
      altitude: 0,
      speed: 0,
      course: 29,
      satellites: 18,
      attributes: { event: 'E', ignition: false, odometer: 1118097, rssi: 24, battery: 4.282, adc1: 22.69, input: 0, io3: 3, versionHw: '1.0', versionFw: '1.6CPASF_6.60' },
    });
  });
  it('refuses a line that is not a report', () => {
    expect(() => decode('$SIWI,1,2')).toThrow(DecodeError);
  });
  it('frames lines', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${REPORT}\r\n$SIWI`))?.frame.toString()).toBe(REPORT);
  });
});
