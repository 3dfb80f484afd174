import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gps056.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const GPS = '242435314750534c5f30323836333037313031353034353834391d0a0e091a0a0b1112c34e1e23230a45ff00000000000000000000000023';
const decode = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);

describe('gps056 replies', () => {
  // Not confirmed by a public document: the *LGSA / *GPSA / *SYSA answers, as the widely used open-source server sends them.
  it('answers login, fix and sync', () => {
    expect(protocol.decode!(Buffer.from('$$25LOGN_118624620337829462.1#'), ctx()).reply!.toString()).toBe('*LGSA_118624620337829461#');
    expect(decode(GPS).reply!.toString('latin1')).toBe('*GPSA_02863071015045849\0\0#');
    expect(decode('2424323853594e435f313138363330373130313530343538343900000000000023').reply!.toString()).toBe('*SYSA_11863071015045849#');
  });
});

describe('gps056 decoding', () => {
  it('reads a fix and places a later sync status at it', () => {
    const c = ctx();
    const [f] = decode(GPS, c).records!;
    expect(f).toMatchObject({ time: Date.UTC(2014, 9, 29, 9, 26, 10), valid: true, lat: 28.558005, lng: 77.26495, speed: 255, course: 0 });
    const [s] = decode('2424323853594e435f313138363330373130313530343538343900000000000023', c).records!;
    expect(s).toMatchObject({ valid: false, lat: 28.558005, attributes: { input: 0, output: 0, adc1: 0, rssi: 0 } });
  });
  it('frames by the ASCII length and skips bytes up to the next $', () => {
    const framer = protocol.createFramer!();
    const stream = Buffer.from(GPS + '0030' + GPS, 'hex');
    const first = framer.next(stream)!;
    expect(first.frame.toString('hex')).toBe(GPS);
    expect(framer.next(stream.subarray(first.consumed))!.frame.toString('hex')).toBe(GPS);
  });
});
