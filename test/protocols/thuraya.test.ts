import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/thuraya.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());
const PERIODIC = '235400437101072bca3c0201348b9a00014c9f085493fc02200c5411470000000042323a300001348b9a00014d03085493ea02200c5010000000000042323a3000f2c1';

// The acknowledgement layout follows the open-source server's implementation; its checksum rule (two's
// complement of the unsigned byte sum) is the one the captured device frames carry.
describe('thuraya', () => {
  it('decodes a periodic report and acknowledges its type', () => {
    const r = decode(PERIODIC);
    expect(r.deviceId).toBe('120310332');
    expect(r.reply?.toString('hex')).toBe('2354000f9901072bca3c71010001fd35');
    expect(r.records).toHaveLength(2);
    expect(r.records![0]).toEqual({ time: Date.UTC(2022, 7, 26, 8, 51, 51), valid: true, lat: 35.65474, lng: 139.760636, course: 327, speed: 0, attributes: { ignition: true, rpm: 0, data: 'B2:0' } });
  });

  it('decodes an event with its code and text', () => {
    const r = decode('2354002b5101072bca3c01348b9a00013fba000000000000000010000000000042323a3000174f4e00f9de');
    expect(r.reply?.toString('hex')).toBe('2354000f9901072bca3c51010001fd55');
    expect(r.records![0].attributes).toEqual({ ignition: true, rpm: 0, data: 'B2:0', event: 23, eventData: 'ON' });
  });

  it('frames by the whole-frame length after #T', () => {
    const framer = protocol.createFramer!();
    const f = framer.next(Buffer.from('00' + PERIODIC + '2354', 'hex'));
    expect(f?.frame.toString('hex')).toBe(PERIODIC);
  });
});
