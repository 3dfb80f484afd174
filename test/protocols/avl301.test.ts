import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/avl301.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

// The acknowledgements `$L#\r\n` and `$H#\r\n` follow the open-source server's implementation; no
// public AVL-301 document confirms them.
describe('avl301 replies', () => {
  it('acknowledges the login and the status message', () => {
    const login = decode('244c0f086058500087335500010d0a');
    expect(login.deviceId).toBe('860585000873355');
    expect(login.reply?.toString()).toBe('$L#\r\n');
    expect(decode('24480d1001c3065c0d00010d0a').reply?.toString()).toBe('$H#\r\n');
  });
});

describe('avl301 decoding', () => {
  it('decodes a GPS + LBS message', () => {
    const [p] = decode('24242c0f041710001d0e060146944904ff4ac40000148f0651044b001a081001be06590daa00000108a30d0a').records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-04-23T16:00:29.000Z');
    expect(p.lat).toBeCloseTo(35.671162, 6);
    expect(p).toMatchObject({ valid: false, course: 20, satellites: 14, attributes: { ignition: false, powerLevel: 26, rssi: 8 } });
  });
  it('frames by the length byte', () => {
    const f = protocol.createFramer!().next(Buffer.from('00244c0f086058500087335500010d0a24', 'hex'));
    expect(f?.frame.toString('hex')).toBe('244c0f086058500087335500010d0a');
    expect(f?.consumed).toBe(16);
  });
});
