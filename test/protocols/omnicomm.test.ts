import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/omnicomm.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

// The archive request after identification and the archive deletion up to the first record number + 1
// follow the open-source server's implementation; the frame layout and CRC follow Omnicomm's protocol description.
describe('omnicomm', () => {
  it('answers the identification with an archive request from record 0', () => {
    const r = decode('c080080061a61915340100001dec');
    expect(r.deviceId).toBe('354002529');
    expect(r.reply?.toString('hex')).toBe('c0850400000000002531');
  });

  it('decodes archive records (NAV, General, LLS) and deletes the archive up to the next record', () => {
    const r = decode(
      'c0866300cd1400002273231400580008011308a2e68da10110002006280030003800400048005000600068007000142b08ec979eb60410eeb7cc8c02180020002804300038a2e68da1012c33080010001800200028003000344308381000180220382800300244df2a',
    );
    expect(r.reply?.toString('hex')).toBe('c0870400ce140000cb8f');
    expect(r.records).toHaveLength(1);
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2019-09-16T12:05:54.000Z');
    expect(p).toMatchObject({ valid: true, satellites: 4, speed: 0, course: 0 });
    expect(p.lat).toBeCloseTo(59.3741302, 6);
    expect(p.lng).toBeCloseTo(28.1644535, 6);
    expect(p.attributes).toMatchObject({ event: 1, status: 6, ignition: false, power: 0, batteryLevel: 0, fuel1: 0 });
  });

  it('frames un-escaped: DB DC inside a frame is C0, and the length counts un-escaped bytes', () => {
    const framer = protocol.createFramer!();
    const f = framer.next(Buffer.from('c0870400dbdc000000aabbc0', 'hex'));
    expect(f?.frame.toString('hex')).toBe('c0870400c0000000aabb');
    expect(f?.consumed).toBe(11);
    expect(framer.next(Buffer.from('c08704', 'hex'))).toBeNull();
  });

  it('escapes C0 and DB in its own replies', () => {
    const r = decode('c0860900bf00000000000000000000');
    expect(r.reply?.toString('hex').startsWith('c0870400dbdc000000')).toBe(true);
  });
});
