import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/autograde.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '(000000007322865733022629240170415A1001.1971N07618.1375E0.000145312128.59?A0024B0024C0000D0000E0000K0000L0000M0000N0000O0000)';

describe('autograde replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('autograde decoding', () => {
  it('reads serial, imei, date, fix, speed, time, course, status byte and the ten analog fields', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('865733022629240');
    const rec = r.records![0];
    expect(rec).toMatchObject({
      time: Date.UTC(2015, 3, 17, 14, 53, 12),
      valid: true,
      speed: 0,
      course: 128.59,
      attributes: { index: 7322, status: 0x3f, adc1: 24, adc2: 24, adc3: 0, adc10: 0 },
    });
    expect(rec.lat).toBeCloseTo(10.019952, 5);
    expect(rec.lng).toBeCloseTo(76.302292, 5);
  });
  it('takes a status byte over 0x7f whether it came as one byte or as UTF-8', () => {
    const at = LINE.indexOf('?');
    const raw = Buffer.concat([Buffer.from(LINE.slice(0, at)), Buffer.from([0x8e]), Buffer.from(LINE.slice(at + 1))]);
    expect(protocol.decode!(raw, ctx).records![0].attributes.status).toBe(0x8e);
    expect(protocol.decode!(Buffer.from(LINE.replace('?', '\u008e')), ctx).records![0].attributes.status).toBe(0x8e);
  });
  it('frames between parentheses; nothing for other text', () => {
    expect(protocol.createFramer!().next(Buffer.from(`xx${LINE}(00`))?.frame.toString()).toBe(LINE);
    expect(protocol.decode!(Buffer.from('(0000)'), ctx)).toEqual({});
  });
});
