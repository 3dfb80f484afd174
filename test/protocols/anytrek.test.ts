import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/anytrek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '78783500300086428703204121160085015111050c0a0d20c6fd24a102ff8eac0c01001404000000ffffffff131702210000000000000000000d0a';

// The answer's layout (type echoed, error, interval, clear-alarm flag, two zero bytes where a checksum
// would sit) follows the open-source server that documents this protocol; no vendor document confirms it.
describe('anytrek replies', () => {
  it('answers a report with its type and no error', () => {
    expect(protocol.decode!(Buffer.from(REPORT, 'hex'), ctx()).reply!.toString('hex')).toBe('78780700300000000000000d0a');
  });
});

describe('anytrek decoding', () => {
  it('reads the IMEI (check digit computed), the fix and the status byte', () => {
    expect(protocol.decode!(Buffer.from(REPORT, 'hex'), ctx())).toMatchObject({
      deviceId: '864287032041210',
      records: [
        {
          time: Date.UTC(2017, 4, 12, 10, 13, 32), valid: true, speed: 1, course: 0, satellites: 6,
          attributes: { versionFw: 22, battery: 3.89, rssi: 81, charge: true, ignition: true, odometer: 33, alarm: 'general' },
        },
      ],
    });
    const [f] = protocol.decode!(Buffer.from(REPORT, 'hex'), ctx()).records!;
    expect(f.lat).toBeCloseTo(24.508443, 6);
    expect(f.lng).toBeCloseTo(118.130773, 6);
  });
  it('frames on the little-endian length after 78 78', () => {
    const bytes = Buffer.from(REPORT, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(bytes.subarray(0, 30))).toBeNull();
    expect(framer.next(Buffer.concat([Buffer.from('ff', 'hex'), bytes, bytes]))).toEqual({ frame: bytes, consumed: bytes.length + 1 });
  });
});
