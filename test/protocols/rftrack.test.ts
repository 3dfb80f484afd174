import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/rftrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: string, c = ctx()) => protocol.decodeHttp!({ method: 'POST', uri: '/deviceDataUpload.do', headers: {}, body: Buffer.from(body) }, c);
const BODY = 'gsm={"n":0,"b":[{"l":6166,"b":19,"c":21423}],"c":460}&wifi=[{"l":-49,"t":"x","m":"30-B4-9E-DD-F8-2D"}]&mt=1073709094&i=358477047125172&gps={"a":30.0,"y":31.251563,"s":4,"t":1589764496654,"z":0.0,"x":121.360346}&dbm=-53&rc=65537&bar=1001.85&t=1589764500713&bat=12380&v=T2.142&id=39163';

describe('rftrack replies', () => {
  // Not confirmed by a public document: the `{}` body (no command queued), as the widely used open-source server answers.
  it('answers 200 with {} and 400 without an IMEI', () => {
    expect(post(BODY)).toMatchObject({ status: 200, body: '{}', deviceId: '358477047125172' });
    expect(post('v=1').status).toBe(400);
  });
});

describe('rftrack decoding', () => {
  it('reads the fix, cells, Wi-Fi and the packed fields', () => {
    expect(post(BODY).records![0]).toEqual({
      valid: true, lat: 31.251563, lng: 121.360346, time: 1589764496654, altitude: 0, precision: 30,
      cells: [{ mcc: 460, mnc: 0, lac: 6166, cid: 21423, rssi: 19 }],
      attributes: {
        vibrationDevice: (1073709094 & 0x7fff) * 10, vibrationBracelet: Math.floor(1073709094 / 0x8000) * 10, rssi: -53, braceletCode: 1, braceletStatus: 1, pressure: 1001.85,
        batteryLevel: 12380 & 0xff, plugStatus: (12380 >> 8) & 0x0f, charge: false, versionFw: 'T2.142', braceletId: '39163', wifi: '30:b4:9e:dd:f8:2d,-49',
      },
    });
  });
  it('places a record without a fix at the last one', () => {
    const c = ctx();
    post(BODY, c);
    expect(post('i=358477047125172&t=1589764600000&dbm=-60', c).records![0]).toMatchObject({ valid: false, lat: 31.251563, time: 1589764600000 });
  });
});
