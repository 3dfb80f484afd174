import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tytan.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

// The acknowledgement (`^` and the datagram's index) follows the open-source server's implementation;
// no public Tytan document confirms it.
describe('tytan replies', () => {
  it('acknowledges each datagram with ^<index>', () => {
    expect(decode('b500192000001405125652ca9b1a325fc98d11a9990018020118fc0d').reply?.toString()).toBe('^4');
    expect(decode('b500197800007422125652d7ac32325fd08d11a69900180200188280').reply?.toString()).toBe('^15');
  });
});

describe('tytan decoding', () => {
  it('decodes records with their extra elements', () => {
    const r = decode('b50028080000689d215602772f00378f1b8e9fdd98005a042efb3e4102030000000402140c070200000901');
    expect(r.deviceId).toBe('26781');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-09-23T09:55:59.000Z');
    expect(p).toMatchObject({ valid: false, satellites: 0, course: 0, speed: 0 });
    expect(p.lat).toBeCloseTo(50.935074, 5);
    expect(p.attributes.power).toBeCloseTo(11.94, 2);
    expect(p.attributes).toMatchObject({ ignition: false, tripOdometer: 0 });
  });
});
