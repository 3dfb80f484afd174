import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/telic.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('telic replies', () => {
  it('answers nothing (the devices expect no answer)', () => {
    expect(decode('0026355565071347499|206|01|001002008')).toEqual({ deviceId: '355565071347499' });
    expect(decode('442045993198,290317131935,0,290317131935,269158,465748,3,26,183,,,,184,85316567,226,01,00,68,218').reply).toBeUndefined();
  });
});

describe('telic decoding', () => {
  it('decodes 1e-4 degree coordinates, km/h and the event', () => {
    const r = decode('442045993198,290317131935,0,290317131935,269158,465748,3,26,183,,,,184,85316567,226,01,00,68,218');
    expect(r.deviceId).toBe('459931');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2017-03-29T13:19:35.000Z');
    expect(f).toMatchObject({ lat: 46.5748, lng: 26.9158, valid: true, speed: 26, course: 183, attributes: { event: 98, batteryRaw: 68 } });
  });
  it('decodes 1e-6 degree coordinates, a 15-digit id, satellites and no-fix', () => {
    const r = decode('023035467909228696525,280220174140,0,280220174135,-80333933,25796530,1,1,0,5,3,3,-21,319064,26202,0000,00,0,206,0,0407,0,0,18,0,3,0');
    expect(r.deviceId).toBe('354679092286965');
    expect(r.records![0]).toMatchObject({ lat: 25.79653, lng: -80.333933, valid: false, satellites: 5, attributes: { event: 25, alarm: 'movement' } });
  });
});

describe('telic framer', () => {
  const next = (hex: string, framer = protocol.createFramer!()) => framer.next(Buffer.from(hex, 'hex'));
  const text = (s: string) => Buffer.from(s, 'latin1').toString('hex');
  it('cuts text at NUL and binary frames at their u32 LE length', () => {
    expect(next(`${text('0026203393|226|10|002004010')}00`)?.frame.toString()).toBe('0026203393|226|10|002004010');
    expect(next(`05000000${text('hello')}00`)).toEqual({ frame: Buffer.from('hello'), consumed: 9 });
  });
  it('takes a later NUL as an empty frame and holds one at the start of the stream until more bytes come', () => {
    const framer = protocol.createFramer!();
    expect(next(`05000000${text('hello')}`, framer)?.consumed).toBe(9);
    expect(next(`00${text('0026')}`, framer)).toEqual({ frame: Buffer.alloc(0), consumed: 1 });
    const fresh = protocol.createFramer!();
    expect(next(`00${text('0026')}`, fresh)).toBeNull();
    expect(next(`00${text('0026')}00`, fresh)).toEqual({ frame: Buffer.alloc(0), consumed: 1 });
  });
  it('refuses endless text', () => {
    expect(() => next(text('1'.repeat(2000)))).toThrow(FrameError);
  });
});
