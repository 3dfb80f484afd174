import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/pt215.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

// The login and GPS answers follow the open-source server's implementation; no public PT215 document confirms them.
describe('pt215 replies', () => {
  it('answers the login', () => {
    const r = decode('58580d010359339075435451010d0a');
    expect(r.deviceId).toBe('359339075435451');
    expect(r.reply?.toString('hex')).toBe('585801010d0a');
  });
  it('answers a GPS message with its time bytes, and nothing to a heartbeat', () => {
    const r = decode('58581510' + '190c0f0a1e2d' + '02d0f5a0' + '0c5c5b80' + '1400' + '0d0a');
    expect(r.reply?.toString('hex')).toBe('58580710190c0f0a1e2d0d0a');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2025-12-15T10:30:45.000Z');
    expect(p).toMatchObject({ valid: true, course: 0 });
    expect(p.lat).toBeCloseTo(0x02d0f5a0 / 1_800_000, 6);
    expect(decode('585801080d0a')).toEqual({});
  });
});
