import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/niot.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '585880004c08675430347318522007161451458024b28003f566ee00000328f8000748217ffc500729007a280000000000160001383932353430323130363431363738373136323100050002004e00570d';
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

describe('niot replies', () => {
  // Not confirmed by a public document: the 0x21 response (the packet's checksum and type, XOR), as the widely
  // used open-source server sends it.
  it('answers every packet with a 0x21 response naming its checksum and type', () => {
    expect(decode(MSG).reply!.toString('hex')).toBe('585821000557800' + '0f30d');
  });
});

describe('niot decoding', () => {
  it('reads position data with its extensions', () => {
    const r = decode(MSG);
    expect(r.deviceId).toBe('867543034731852');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2020, 6, 16, 14, 51, 45), lat: -1.3361066666666668, lng: 36.89684333333334, course: 328, valid: true, satellites: 7, speed: 0,
      attributes: { odometer: 477217, ignition: true, battery: 4.1, power: 12.2, iccid: '89254021064167871621' },
    });
  });
  it('frames by the length after the type', () => {
    expect(protocol.createFramer!().next(Buffer.from(MSG + '58', 'hex'))!.consumed).toBe(MSG.length / 2);
  });
});
