import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/oigo.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });
const MG = '0103537820628365110310410790660962521813380026ee4eff8593aa0065003e00794c020600100500000000';
const AR = '7e002e000000146310002523830400001bfb000369150f310c0591594d062ac0c0141508011303cd63101604fd00000000';

// The MG acknowledgement (0xE0, the message index, 0x00, when flag bit 7 asks for it) follows the
// open-source server's implementation; no public Oigo document confirms it.
describe('oigo replies', () => {
  it('acknowledges an MG message whose flags ask for it', () => {
    const msg = Buffer.from(MG, 'hex');
    msg[1] |= 0x80;
    msg[38] = 0x2a;
    expect(protocol.decode!(msg, ctx()).reply?.toString('hex')).toBe('e02a00');
  });
  it('answers nothing otherwise', () => {
    expect(protocol.decode!(Buffer.from(MG, 'hex'), ctx()).reply).toBeUndefined();
    expect(protocol.decode!(Buffer.from(AR, 'hex'), ctx()).reply).toBeUndefined();
  });
});

describe('oigo decoding', () => {
  it('decodes an AR location by its field mask', () => {
    const r = protocol.decode!(Buffer.from(AR, 'hex'), ctx());
    expect(r.deviceId).toBe('014631000252383');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2016-09-21T15:49:12.000Z');
    expect(p).toMatchObject({ valid: true, satellites: 4, hdop: 2.1, speed: 8, course: 275, altitude: 973 });
    expect(p.lat).toBeCloseTo(3.411661, 6);
    expect(p.attributes).toMatchObject({ event: 4, index: 3, power: 4.118 });
  });
  it('decodes an MG message: mph, feet, miles', () => {
    const [p] = protocol.decode!(Buffer.from(MG, 'hex'), ctx()).records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-02-24T19:56:02.000Z');
    expect(p.lat).toBeCloseTo(25.856233, 6);
    expect(p.lng).toBeCloseTo(-80.385433, 6);
    expect(p.altitude).toBeCloseTo(101 * 0.3048, 6);
    expect(p.attributes).toMatchObject({ power: 12.1, rssi: 6 });
  });
});
