import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/orion.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());
const ACKED =
  '5057004107367c242b440901ade97d0163143b07b003000000000d041917382d000b0101000511000000000682050000008e080000000000008c0300840300850300090a0000000048010000008afc';

// The answer (`*`, the CRC bytes, the sequence byte) follows the open-source server's implementation;
// no public Orion document at hand confirms it.
describe('orion', () => {
  it('decodes a user log and answers when the header asks for it', () => {
    const r = decode(ACKED);
    expect(r.deviceId).toBe('121011236');
    expect(r.reply?.toString('hex')).toBe('2a8afc00');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2013-04-25T23:56:45.000Z');
    expect(p).toMatchObject({ valid: false, satellites: 0, altitude: 94.4, course: 0, speed: 0, attributes: { event: 43, status: 265 } });
    expect(p.lat).toBeCloseTo(25.048395, 6);
    expect(p.lng).toBeCloseTo(121.5205917, 6);
  });

  it('does not answer a log without the answer bit; a western longitude is negative', () => {
    const r = decode(
      '5057000137bf6236235a0331b5c6e402a3b5ecff5102980003000e0c1d172936080e0c1d172936b03b01000882050000008e080000000000008c0300940500000084030085030003067600900113150000000000000000000000000000000000000004a4c8',
    );
    expect(r.reply).toBeUndefined();
    expect(r.records![0].lng).toBeCloseTo(-1.4403683, 6);
    expect(r.records![0].valid).toBe(true);
  });

  it('frames by the record lengths, across split chunks', () => {
    const bytes = Buffer.from(ACKED + ACKED, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(bytes.subarray(0, 40))).toBeNull();
    const f = framer.next(bytes);
    expect(f?.frame.toString('hex')).toBe(ACKED);
    expect(f?.consumed).toBe(79);
  });
});
