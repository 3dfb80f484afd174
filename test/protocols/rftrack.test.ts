import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/rftrack.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const post = (body: string): HttpRequest => ({ method: 'POST', uri: '/deviceDataUpload.do', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(body) });
const BODY =
  'gsm={"n":0,"b":[{"l":6166,"b":19,"c":21423}],"c":460}&wifi=[{"l":-49,"t":"lianqin20","m":"30-B4-9E-DD-F8-2D"}]' +
  '&i=358477047125172&gps={"a":30.0,"y":31.251563,"s":4,"t":1589764496654,"z":0.0,"x":121.360346}&dbm=-53&bar=1001.85065&t=1589764500713&bat=12380&v=T2.142.2_2.0_R03';

describe('rftrack replies', () => {
  it('answers 200 to a report, 400 without an IMEI', () => {
    expect(protocol.decodeHttp!(post(BODY), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post('gps={}'), ctx)).toEqual({ status: 400 });
  });
});

describe('rftrack decoding', () => {
  it('reads the GPS fix with its accuracy, the cells, Wi-Fi, signal, battery, pressure and version', () => {
    expect(protocol.decodeHttp!(post(BODY), ctx)).toEqual({
      deviceId: '358477047125172',
      status: 200,
      records: [
        {
          time: 1589764496654,
          valid: true,
          lat: 31.251563,
          lng: 121.360346,
          precision: 30,
          cells: [{ mcc: 460, mnc: 0, lac: 6166, cid: 21423, rssi: 19 }],
          attributes: { rssi: -53, battery: 12.38, pressure: 1001.85065, versionFw: 'T2.142.2_2.0_R03', wifi: '30:b4:9e:dd:f8:2d,-49' },
        },
      ],
    });
  });
  it('keeps a report without GPS as cells and Wi-Fi at the send time', () => {
    const r = protocol.decodeHttp!(post(BODY.replace(/&gps=\{[^}]*\}/, '')), ctx);
    expect(r.records![0].lat).toBeUndefined();
    expect(r.records![0]).toMatchObject({ time: 1589764500713, cells: [{ cid: 21423 }] });
  });
});
