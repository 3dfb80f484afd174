import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tr20.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('tr20', () => {
  it('answers the keep-alive with &&<n> and CRLF', () => {
    expect(decode('%%TRACKPRO01,1')).toEqual({ deviceId: 'TRACKPRO01', reply: Buffer.from('&&1\r\n') });
  });
  it('decodes a report: hemisphere-first coordinates, km/h, temperature, status, event; no answer', () => {
    const r = decode('%%TR-10,A,050916070549,N2240.8887E11359.2994,36,120,B13.1:F0.0,D3800000,150,CFG:resend|');
    expect(r.deviceId).toBe('TR-10');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2005-09-16T07:05:49.000Z');
    expect(p.lat).toBeCloseTo(22.68148, 5);
    expect(p.lng).toBeCloseTo(113.98832, 5);
    expect(p).toMatchObject({ valid: true, speed: 36, course: 120, attributes: { temp1: 13, status: 0xd3800000, event: 150 } });
  });
  it('ignores reports it cannot read', () => {
    expect(decode('%%0630,A,250523152852,N0951.6838W08357.0221,000,000,T0;F2,00020000,108,CFG:0.00|')).toEqual({});
  });
  it('frames at line ends, | or the next %%', () => {
    const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
    expect(next('%%A,1|%%B')).toEqual({ frame: Buffer.from('%%A,1|'), consumed: 6 });
    expect(next('%%A,1%%B')).toEqual({ frame: Buffer.from('%%A,1'), consumed: 5 });
    expect(next('%%A,1\r\n')).toEqual({ frame: Buffer.from('%%A,1'), consumed: 6 });
    expect(() => next('x'.repeat(2000))).toThrow(FrameError);
  });
});
