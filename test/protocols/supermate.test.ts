import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/supermate.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 1, 2, 3), transport: 'tcp', config: {}, session: {} });
const MSG = '2:359672050130411:1:*,00000000,XT,A,10031b,140b28,80ad4c72,81ba2d2c,06ab,238c,020204010000,12,0,0000,0003e6';

describe('supermate replies', () => {
  // Not confirmed by a public document: the UP answer with the server time as hex pairs, as the widely used
  // open-source server sends it (which writes the full year; the two-digit year here matches the device's own dates).
  it('answers every report with UP and the time', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply!.toString()).toBe('#1:359672050130411:1:*,00000000,UP,190216,010203#');
  });
});

describe('supermate decoding', () => {
  it('reads hex date, time, sign-digit coordinates, speed and course in hundredths', () => {
    const [f] = protocol.decode!(Buffer.from(MSG), ctx()).records!;
    expect(f).toMatchObject({ time: Date.UTC(2016, 2, 27, 20, 11, 40), valid: true, speed: 17.07, course: 91, attributes: { commandId: '00000000', command: 'XT', status: '020204010000', signal: 0x12, power: 0, oil: 0, odometer: 0x3e6 } });
    expect(f.lat).toBeCloseTo(-0x0ad4c72 / 600000, 9);
    expect(f.lng).toBeCloseTo(-0x1ba2d2c / 600000, 9);
  });
});
