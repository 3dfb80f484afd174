import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/portman.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('portman replies', () => {
  it('sends nothing back to reports', () => {
    expect(decode('%%863922034547720,A,231119031316,N3640.4542E11707.5992,000,000,NA,95000000,NA,254,24,1.00,24').reply).toBeUndefined();
  });
  it('encodes engine stop and resume', () => {
    const enc = (type: string) => protocol.encode!({ type, attributes: {} }, { deviceId: '863922034547720', now: 0, config: {} }).toString();
    expect([enc('engineStop'), enc('engineResume')]).toEqual(['&&863922034547720,XA5\r\n', '&&863922034547720,XA6\r\n']);
  });
});

describe('portman decoding', () => {
  it('reads a standard report: degrees and minutes, status, event 254 = ignition off', () => {
    const [f] = decode('%%863922034547720,A,231119031316,N3640.4542E11707.5992,000,000,NA,95000000,NA,254,24,1.00,24').records!;
    expect(f).toMatchObject({ time: Date.UTC(2023, 10, 19, 3, 13, 16), valid: true, satellites: 24, attributes: { status: 0x95000000, event: 254, ignition: false, odometer: 1000, rssi: 24 } });
    expect(f.lat).toBeCloseTo(36 + 40.4542 / 60, 9);
  });
  it('reads an extended report', () => {
    const [f] = decode('$EXT,P0RTMANGRANT,A,210609201710,N0951.6879W08357.0129,0,0,NA,NA,11,25,174700.25,NA,01820000,108').records!;
    expect(f).toMatchObject({ satellites: 11, attributes: { rssi: 25, odometer: 174700250, status: 0x01820000, event: 108 } });
    expect(f.lng).toBeCloseTo(-(83 + 57.0129 / 60), 9);
  });
});
