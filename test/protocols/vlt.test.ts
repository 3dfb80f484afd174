import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/vlt.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: string) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(body) }, ctx());
const NRM = 'vltdata=NRM12345678901234501L1060418102230023.125503N080.068033E4041231234123456789070.48120.5025273011M';

describe('vlt replies', () => {
  it('answers 200 with an empty body, 400 without vltdata', () => {
    expect(post(NRM)).toMatchObject({ status: 200, body: '', deviceId: '123456789012345' });
    expect(post('x=1').status).toBe(400);
  });
});

describe('vlt decoding', () => {
  it('reads a live record', () => {
    expect(post(NRM).records).toEqual([{
      time: Date.UTC(2018, 3, 6, 10, 22, 30), valid: true, lat: 23.125503, lng: 80.068033, speed: 70.48, course: 120.5, satellites: 25, hdop: 27,
      cells: [{ mcc: 404, mnc: 123, lac: 0x1234, cid: 123456789, rssi: 30 }], attributes: { event: 1, ignition: true, charge: true, motion: true },
    }]);
  });
  it('reads a batch of 78-character records', () => {
    const r = post('vltdata=BTH861230041673063002' + '01L1240323181909009.226018N076.794980E404x19601d000037596000.00198.7013011401S' + '02H1240323181807009.226018N076.794980E404x72090a000000000000.00198.7013011101S');
    expect(r.records!.map((x) => [x.time, x.attributes.archive, x.cells![0].mnc])).toEqual([[Date.UTC(2023, 2, 24, 18, 19, 9), undefined, 19], [Date.UTC(2023, 2, 24, 18, 18, 7), true, 72]]);
  });
});
