import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/c2stek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

// The echoed heartbeat follows the open-source server's implementation; no public C2STEK document confirms it.
describe('c2stek', () => {
  it('echoes the heartbeat', () => {
    expect(decode('PA$863083030602124$20$AP')).toEqual({ deviceId: '863083030602124', reply: Buffer.from('PA$863083030602124$20$AP') });
  });
  it('decodes a report with its alarm, armed, door and ignition', () => {
    const [p] = decode('PA$353990030327618$D#091117#020928#1#22.537222#114.020948#0.00#0.0#42.1#4183#011#5#101#Wsz-wl001#B0101940$AP').records!;
    expect(new Date(p.time!).toISOString()).toBe('2009-11-17T02:09:28.000Z');
    expect(p).toMatchObject({ valid: true, lat: 22.537222, altitude: 42.1, attributes: { battery: 4.183, alarm: 'sos', armed: true, door: false, ignition: true } });
  });
});
