import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/intellitrac.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('intellitrac replies', () => {
  it('echoes the 8-byte sync packet and answers nothing else', () => {
    const sync = Buffer.from('faf81b018160333c', 'hex');
    expect(protocol.decode!(sync, ctx()).reply?.toString('hex')).toBe('faf81b018160333c');
    expect(decode('101000001,20100304075545,121.64547,25.06200,0,0,61,7,2,1,0,0.046,0.000,20100304075546,0').reply).toBeUndefined();
  });
});

describe('intellitrac decoding', () => {
  it('decodes a report: id after any prefix, km/h, altitude, satellites, io, analog inputs', () => {
    const r = decode('$RP:12345,1010000002,20030217144230,121.646102,25.061398,10,20,-13,7,995,3,1,0.046,1.500');
    expect(r.deviceId).toBe('1010000002');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2003-02-17T14:42:30.000Z');
    expect(f).toMatchObject({ lat: 25.061398, lng: 121.646102, speed: 10, course: 20, altitude: -13, satellites: 7 });
    expect(f.attributes).toEqual({ event: 995, alarm: 'sos', input: 3, output: 1, adc1: 0.046, adc2: 1.5 });
  });
  it('decodes the J1939 tail', () => {
    const [f] = decode('1003269480,20131126100258,10.32989,49.93836,0,304,217,6,2,0,0,0.000,0.000,20131126100258,0,55,1200,-40,70,3,-27,0,0,0,123456').records!;
    expect(f.attributes).toMatchObject({ obdSpeed: 55, rpm: 1200, coolantTemp: -40, fuel: 70, fuelConsumption: 3, temp1: -27, obdOdometer: 123456 });
  });
  it('ignores command answers', () => {
    expect(decode('$OK:TRACKING')).toEqual({});
  });
});

describe('intellitrac framer', () => {
  const next = (b: Buffer) => protocol.createFramer!().next(b);
  it('cuts the sync packet and lines', () => {
    expect(next(Buffer.from('faf81b018160333c3130', 'hex'))?.frame.toString('hex')).toBe('faf81b018160333c');
    expect(next(Buffer.from('1,2\r\n3'))).toEqual({ frame: Buffer.from('1,2'), consumed: 4 });
    expect(() => next(Buffer.alloc(2000, 0x31))).toThrow(FrameError);
  });
});
