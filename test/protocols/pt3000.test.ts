import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/pt3000.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '%356939010012099,$GPRMC,124945.752,A,4436.6245,N,01054.4634,E,0.11,358.52,060408,,,A,+393334347445,N028';

describe('pt3000 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('pt3000 decoding', () => {
  it('reads the RMC sentence after the IMEI', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.deviceId).toBe('356939010012099');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2008, 3, 6, 12, 49, 45), valid: true, course: 358.52 });
  });
  it('frames at the letter d', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${MSG}d%35`))!.frame.toString()).toBe(MSG);
  });
});
