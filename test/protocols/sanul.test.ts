import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/sanul.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const LOGIN = 'aa007020000100000000000033353333353830313831353431313700000000000000000000';

// The response layout follows the open-source server's implementation; no public Sanul document confirms it.
describe('sanul', () => {
  it('answers the login with a type 5 response naming type 0', () => {
    const r = protocol.decode!(Buffer.from(LOGIN, 'hex'), ctx());
    expect(r.deviceId).toBe('353358018154117');
    expect(r.reply?.toString('hex')).toBe('aada850f00010500000000000000000000000200');
    expect(r.records).toBeUndefined();
  });

  it('acknowledges a location report with its type', () => {
    const r = protocol.decode!(Buffer.from('aa00700a00010100000000000102030405', 'hex'), ctx());
    expect(r.reply?.toString('hex')).toBe('aada850f00010500010000000000000000000200');
  });

  it('frames by the length at offset 3', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from(LOGIN.slice(0, 40), 'hex'))).toBeNull();
    expect(framer.next(Buffer.from(LOGIN + 'aa00', 'hex'))?.consumed).toBe(37);
  });
});
