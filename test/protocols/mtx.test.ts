import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/mtx.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

// The answer `#ACK` to every message follows the open-source server's implementation; no public MTX
// document confirms it.
describe('mtx', () => {
  it('answers #ACK and decodes the report', () => {
    const r = protocol.decode!(Buffer.from('#MTX,353815011138124,20101226,195550,41.6296399,002.3611174,000,035,000012.50,X,X,1011,01,120,0'), ctx());
    expect(r.reply?.toString()).toBe('#ACK');
    expect(r.deviceId).toBe('353815011138124');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2010-12-26T19:55:50.000Z');
    expect(p).toMatchObject({ lat: 41.6296399, lng: 2.3611174, course: 35, attributes: { odometer: 12500, input: 0b1101, output: 0b10, adc1: 120, adc2: 0 } });
  });
});
