import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/vt200.ts';
import { FrameError, DecodeError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

const POSITION = '28192030961807208200210101b919011818375801245774036424612500160917000003aa008800007b00aa3429';
const IGNITION = '2830140414000130890012010003280414090004224388161134912397df29';

describe('vt200 replies', () => {
  it('sends nothing back (the protocol has no acknowledgement)', () => {
    expect(decode(POSITION).reply).toBeUndefined();
    expect(decode(IGNITION).reply).toBeUndefined();
  });
});

describe('vt200 decoding', () => {
  it('reads a position: BCD time and ddmm.mmmm coordinates, hemisphere and fix flags, km/h, course / 2', () => {
    const r = decode(POSITION);
    expect(r.deviceId).toBe('192030961807');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2018-01-19T18:37:58.000Z');
    expect(f.lat).toBeCloseTo(-(1 + 24.5774 / 60), 9);
    expect(f.lng).toBeCloseTo(36 + 42.4612 / 60, 9);
    expect(f).toMatchObject({ valid: true, speed: 0, course: 44, satellites: 9 });
  });
  it('reads the ignition report, with or without a position', () => {
    const [f] = decode(IGNITION).records!;
    expect(f).toMatchObject({ valid: true, attributes: { ignition: true } });
    expect(f.lat).toBeCloseTo(22.73136, 5);
    expect(decode('2830140414000130890009010003280414090004df29').records![0]).toMatchObject({ valid: false, lat: 0, lng: 0 });
  });
  it('records nothing for a position that is not BCD (no fix yet)', () => {
    expect(decode('286310373094563082002701033d010817143327c68a14841e00c27f550e9a000000000c000000084700200120007d01af260b29').records).toEqual([]);
  });
  it('refuses a frame without its start', () => {
    expect(() => decode('29000000000000000000000000')).toThrow(DecodeError);
  });
});

describe('vt200 framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts ( .. ) and un-escapes 3D x to x XOR 3D', () => {
    expect(next('28013d143d003d1529')?.frame.toString('hex')).toBe('2801293d2829');
    expect(next('2801')).toBeNull();
    expect(() => next('00')).toThrow(FrameError);
  });
});
