import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/thinkrace.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const LOGIN = '48415349483031343730303134382c8000100134363030303134363139363239343806ff';
const GPS = '48415349483031343730303134382c90001755701674d70155466406cbb813003d24a410f5000000770b4c';

describe('thinkrace replies', () => {
  // Not confirmed by a public document: the login answer (HR, the id, 80 0002 8000 0000), as the widely used
  // open-source server sends it.
  it('answers the login', () => {
    expect(protocol.decode!(Buffer.from(LOGIN, 'hex'), ctx()).reply!.toString('hex')).toBe(Buffer.from('HRSIH014700148,').toString('hex') + '80000280000000');
  });
});

describe('thinkrace decoding', () => {
  it('reads a fix of a known device', () => {
    expect(protocol.decode!(Buffer.from(GPS, 'hex'), ctx('1')).records).toEqual([{ time: 1433409140000, valid: true, lat: 22.60966, lng: 114.02371166666667, speed: 0, course: 61, attributes: { lac: 9380, cid: 4341 } }]);
  });
  it('frames by the body length', () => {
    expect(protocol.createFramer!().next(Buffer.from(GPS + '48', 'hex'))!.consumed).toBe(GPS.length / 2);
  });
});
