import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gl100.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('gl100 replies', () => {
  it('sends nothing back, heartbeats included', () => {
    expect(decode('AT+GTHBD=HeartBeat,359231030000010,20090101000000,11F0,0102120204')).toEqual({ deviceId: '359231030000010' });
    expect(decode('+RESP:GTRTL,359464032011616,1,0,0,0,0.1,0,1662.5,,36.822301,-1.309476,20230706032920,0639,0002,08DF,1F5E,00,095,0101050105,4470').reply).toBeUndefined();
  });
});

describe('gl100 decoding', () => {
  it('reads a position block: longitude first, fix 0 = valid, hex cell', () => {
    const [f] = decode('+RESP:GTRTL,359464032011616,1,0,0,0,0.1,0,1662.5,,36.822301,-1.309476,20230706032920,0639,0002,08DF,1F5E,00,095,0101050105,4470').records!;
    expect(f).toEqual({
      time: Date.UTC(2023, 6, 6, 3, 29, 20),
      valid: true,
      lat: -1.309476,
      lng: 36.822301,
      speed: 0.1,
      course: 0,
      altitude: 1662.5,
      cells: [{ mcc: 639, mnc: 2, lac: 0x08df, cid: 0x1f5e }],
      attributes: { type: 'RTL' },
    });
  });
  it('marks SOS reports and reads every block of a multi-fix report', () => {
    const [s] = decode('+RESP:GTSOS,359231030000010,0,0,0,1,4.3,92,70.0,1,121.354335,31.222073,20090101000000,0460,0000,18d8,6141,00,11F0,0102120204').records!;
    expect(s).toMatchObject({ valid: false, hdop: 1, attributes: { alarm: 'sos' } });
    const two = decode('+RESP:GTTRI,135790246811220,2,0,0,0,1.0,10,1.0,1,1.5,2.5,20200101000000,0460,0000,18d8,6141,00,0,2.0,20,2.0,1,1.6,2.6,20200101000100,0460,0000,18d8,6141,00,11F0');
    expect(two.records!.map((r) => r.lng)).toEqual([1.5, 1.6]);
  });
  it('refuses other text', () => {
    expect(() => decode('hello')).toThrow(DecodeError);
  });
});

describe('gl100 framer', () => {
  it('cuts at $, NUL or a line break', () => {
    const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
    expect(next('\r\n+RESP:GTRTL,1$+RESP')).toEqual({ frame: Buffer.from('+RESP:GTRTL,1'), consumed: 16 });
    expect(next('+RESP')).toBeNull();
    expect(() => next('x'.repeat(3000))).toThrow(FrameError);
  });
});
