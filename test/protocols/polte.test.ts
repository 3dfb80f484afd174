import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/polte.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const post = (body: string): HttpRequest => ({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
const REPORT = {
  ueToken: 'ALT12503DE04336CB2E3A4A113FCDE05DF05A6F',
  uid: 'WZuDMv5Je',
  time: '2020-10-01T12:45:42Z',
  location: { latitude: 29.77368956725161, longitude: -98.26530342694024, altitude: 0.5, confidence: 783.8, detected_at: 1601556342 },
  report: { battery: { count: 555, level: 100, voltage: 3.52 }, event: 3, time: '2020-10-01T12:45:48.207Z' },
};

describe('polte replies', () => {
  it('answers 200 to a report, 400 to a body that is not one', () => {
    expect(protocol.decodeHttp!(post(JSON.stringify(REPORT)), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post('not json'), ctx)).toEqual({ status: 400 });
    expect(protocol.decodeHttp!(post('{"location":{}}'), ctx)).toEqual({ status: 400 });
  });
});

describe('polte decoding', () => {
  it('takes the ueToken as the device and the network fix with its accuracy, battery and event', () => {
    expect(protocol.decodeHttp!(post(JSON.stringify(REPORT)), ctx)).toEqual({
      deviceId: REPORT.ueToken,
      status: 200,
      records: [
        { time: 1601556342000, valid: true, lat: 29.77368956725161, lng: -98.26530342694024, altitude: 0.5, precision: 783.8, lbs: true, attributes: { event: 3, batteryLevel: 100, battery: 3.52 } },
      ],
    });
  });
  it('keeps a report without a location as a status record at the report time', () => {
    const r = protocol.decodeHttp!(post(JSON.stringify({ ...REPORT, location: {} })), ctx);
    expect(r.records).toEqual([{ time: Date.UTC(2020, 9, 1, 12, 45, 42), attributes: { event: 3, batteryLevel: 100, battery: 3.52 } }]);
  });
});
