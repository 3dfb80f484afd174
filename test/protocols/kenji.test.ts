import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/kenji.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '>C800000,M005004,O0000,I0002,D124057,A,S3137.2783,W05830.2978,T000.0,H254.3,Y240116,G06*17';

describe('kenji replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('kenji decoding', () => {
  it('reads id, alarm/output/input masks, time, position, speed, course, date and satellites', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('800000');
    const rec = r.records![0];
    expect(rec).toMatchObject({ time: Date.UTC(2016, 0, 24, 12, 40, 57), valid: true, speed: 0, course: 254.3, satellites: 6, attributes: { status: 0x5004, output: 0, input: 2 } });
    expect(rec.lat).toBeCloseTo(-31.621305, 6);
    expect(rec.lng).toBeCloseTo(-58.50496, 4);
  });
  it('yields nothing for other text; frames at line ends', () => {
    expect(protocol.decode!(Buffer.from('>C12'), ctx)).toEqual({});
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n>C`))?.frame.toString()).toBe(LINE);
  });
});
