import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/nto.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '^NB,880002023090601,N00,050923,233519,V,N,2236.1994,E,11315.4645,5,0,000000000000,460:00:0:75217090,-04:00,,1693971319,31,2DA5';

describe('nto replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('nto decoding', () => {
  it('reads id, event, date and time, position, speed, course, status, cell and signal', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('880002023090601');
    const rec = r.records![0];
    expect(rec).toMatchObject({
      time: Date.UTC(2023, 8, 5, 23, 35, 19),
      valid: false,
      speed: 5,
      course: 0,
      cells: [{ mcc: 460, mnc: 0, lac: 0, cid: 75217090 }],
      attributes: { type: 'NB', event: 'N00', status: '000000000000', rssi: 31 },
    });
    expect(rec.lat).toBeCloseTo(22.60332, 5);
    expect(rec.lng).toBeCloseTo(113.25774, 5);
  });
  it('yields nothing for other text; frames at line ends', () => {
    expect(protocol.decode!(Buffer.from('^NB,1'), ctx)).toEqual({});
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n^NB`))?.frame.toString()).toBe(LINE);
  });
});
