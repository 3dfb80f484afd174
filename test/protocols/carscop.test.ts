import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/carscop.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (s: string, id?: string) => protocol.decode!(Buffer.from(s), ctx(id));
const LOGIN = '*040331141830UB05123456789012345061825A2934.0133N10627.2544E000.0040331309.6200000000L000000';

describe('carscop replies', () => {
  it('sends nothing back, to reports and heartbeats alike (the devices expect no answer)', () => {
    expect(decode(LOGIN).reply).toBeUndefined();
    expect(decode('*170821223045UB00HSO', '123456789012345')).toEqual({ deviceId: undefined });
  });
});

describe('carscop decoding', () => {
  it('takes the id after UB05 and reads the position, status and odometer', () => {
    const r = decode(LOGIN);
    expect(r.deviceId).toBe('123456789012345');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2004, 2, 31, 6, 18, 25), valid: true, speed: 0, course: 309.62, attributes: { status: '00000000', odometer: 0 } });
    expect(r.records![0].lat).toBeCloseTo(29.56689, 5);
  });
  it('reads later reports of a known device; nothing before one is known', () => {
    const alarm = '*040331141830UA012Hi-jack061825A2934.0133N10627.2544E000.0040331309.6200000000L000000';
    expect(decode(alarm, '123456789012345').records).toHaveLength(1);
    expect(decode(alarm).records).toBeUndefined();
  });
  it('frames at ^', () => {
    expect(protocol.createFramer!().next(Buffer.from('*170821223045UB00HSO^*17'))?.frame.toString()).toBe('*170821223045UB00HSO');
  });
});
