import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ais.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s), c);

describe('ais replies', () => {
  it('sends nothing back (receivers expect no answer)', () => {
    expect(decode('!AIVDM,1,1,,B,13UhUh0P01QcoRTEdtB>4?v<2D=j,0*54').reply).toBeUndefined();
  });
});

describe('ais decoding', () => {
  it('reads a position report under the MMSI, at the time of arrival', () => {
    expect(decode('!AIVDM,1,1,,B,13UhUh0P01QcoRTEdtB>4?v<2D=j,0*54').records).toEqual([{
      deviceId: '240920000', time: Date.UTC(2025, 0, 1), valid: true, lat: 37.927373333333335, lng: 23.564083333333333, speed: 0.1 * 1.852, course: 0,
      attributes: { status: 0, turn: -128, heading: 511 },
    }]);
  });
  it('keeps static data out and joins multi-part messages across lines', () => {
    expect(decode('!AIVDM,1,1,,A,H3FUli4T000000000000001p0400,0*6E').records).toEqual([]);
    const c = ctx();
    expect(decode('!AIVDM,2,1,8,A,13UhUh0P01QcoRTE,0*00', c).records).toEqual([]);
    expect(decode('!AIVDM,2,2,8,A,dtB>4?v<2D=j,0*00', c).records![0].deviceId).toBe('240920000');
  });
});
