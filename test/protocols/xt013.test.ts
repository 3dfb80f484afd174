import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/xt013.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('xt013 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('TK,862950021650364,150131090859,+53.267863,+5.767363,0,38,12,0,F,204,08,C94,336C,24,,4.09,1,,,,,,,,').reply).toBeUndefined();
  });
});

describe('xt013 decoding', () => {
  it('reads a report, also after an HI greeting', () => {
    const want = { time: Date.UTC(2015, 0, 18, 11, 38, 32), valid: true, lat: 53.267722, lng: 5.767143, speed: 0, course: 86, altitude: 0, satellites: 8, attributes: { rssi: 22, battery: 4.21, charge: true } };
    expect(decode('TK,862950021650364,150118113832,+53.267722,+5.767143,0,86,12,0,F,204,08,C94,336C,22,,4.21,1,,,,,,,,').records![0]).toEqual(want);
    expect(decode('HI,862950021650364TK,862950021650364,150118113832,+53.267722,+5.767143,0,86,12,0,F,204,08,C94,336C,22,,4.21,1,,,,,,,,').records![0]).toEqual(want);
  });
});
