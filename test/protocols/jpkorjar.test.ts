import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/jpkorjar.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = 'KORJAR.PL,329587014519383,160910144240,52.247254N,021.013375E,0.00,1,F:4.18V,1 260 01 794B 3517,';

describe('jpkorjar replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('jpkorjar decoding', () => {
  it('reads the fix, battery and cell', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).records![0]).toEqual({
      time: Date.UTC(2016, 8, 10, 14, 42, 40), valid: true, lat: 52.247254, lng: 21.013375, speed: 0, course: 1,
      cells: [{ mcc: 260, mnc: 1, lac: 0x794b, cid: 0x3517 }], attributes: { battery: 4.18 },
    });
  });
  it('frames at the first comma after the first space', () => {
    expect(protocol.createFramer!().next(Buffer.from(MSG + 'KORJAR'))!.frame.toString()).toBe(MSG);
  });
});
