import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/vnet.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const LOGIN = '24240000140029111909062986818303379282604c452e322e30302ea32b020f0000d3552323';
const GPS = '242433001200290615174213211489861061060690070b0001020304700005001e382323';

// Echoing the login frame follows the open-source server's implementation; no public VNET document confirms it.
describe('vnet', () => {
  it('echoes the login frame', () => {
    const r = protocol.decode!(Buffer.from(LOGIN, 'hex'), ctx());
    expect(r.deviceId).toBe('868183033792826');
    expect(r.reply?.toString('hex')).toBe(LOGIN);
  });

  it('decodes a GPS message with BCD coordinates and sends no answer', () => {
    const r = protocol.decode!(Buffer.from(GPS, 'hex'), ctx());
    expect(r.reply).toBeUndefined();
    expect(r.records).toEqual([
      { time: Date.UTC(2015, 5, 29, 17, 42, 13), valid: true, lat: expect.closeTo(21.24831, 6), lng: expect.closeTo(106.1767817, 6), satellites: 11, speed: 0, course: 224, attributes: { odometer: 0x04030201 } },
    ]);
  });

  it('frames by the data length plus the 18 bytes around it', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from(LOGIN.slice(0, 30), 'hex'))).toBeNull();
    expect(framer.next(Buffer.from(LOGIN + GPS, 'hex'))?.frame.toString('hex')).toBe(LOGIN);
  });
});
