import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/sabertek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = ',999999999,4,356495040613400,89270200120171498287,+27821234123,20180525145412,60,75,15,1,1,-25.781666,28.254702,40,268,1414,8,24844,';

// ACK (0x06) and NAK (0x15) follow the open-source server's implementation; no public Sabertek document confirms them.
describe('sabertek replies', () => {
  it('acknowledges a report with ACK and refuses an unknown device with NAK', () => {
    expect(protocol.decode!(Buffer.from(REPORT), ctx()).reply?.toString('hex')).toBe('06');
    expect(protocol.refuse!(ctx())?.toString('hex')).toBe('15');
  });
});

describe('sabertek decoding', () => {
  it('decodes state and event bits', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('999999999');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-05-25T14:54:12.000Z');
    expect(p).toMatchObject({ valid: true, speed: 40, course: 268, altitude: 1414, satellites: 8 });
    expect(p.attributes).toEqual({ batteryLevel: 60, rssi: 75, ignition: true, charge: true, alarm: 'hardBraking', odometer: 24844000 });
  });
  it('frames the text between STX and ETX', () => {
    const f = protocol.createFramer!().next(Buffer.from(`\x02${REPORT}\x03\r\n`, 'latin1'));
    expect(f?.frame.toString()).toBe(REPORT);
  });
});
