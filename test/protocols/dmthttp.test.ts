import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dmthttp.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: string) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) }, ctx());

describe('dmthttp answers', () => {
  it('answers 200 with an empty body to an upload', () => {
    expect(post('{"date":"2021-10-04T18:15:47Z","device":{"imei":"352656106127312"},"sqn":1,"reason":11}')).toMatchObject({ status: 200, body: '', deviceId: '352656106127312' });
  });
  it('answers 400 to a body that is not an upload', () => {
    expect(post('not json')).toEqual({ status: 400 });
    expect(post('{"Records":[]}')).toEqual({ status: 400 });
    expect(post('{"device":{}}')).toEqual({ status: 400 });
  });
});

describe('dmthttp decoding', () => {
  it('reads a traditional upload: GPS, digital IO and analogue fields', () => {
    const body = JSON.stringify({
      SerNo: 131693, IMEI: '356692063643328',
      Records: [{ SeqNo: 125, Reason: 11, DateUTC: '2017-05-11 05:58:44', Fields: [
        { GpsUTC: '2017-05-08 18:04:57', Lat: 43.7370138, Long: -79.3462607, Alt: 197, Spd: 100, Head: 66, PosAcc: 37, GpsStat: 7, FType: 0 },
        { DIn: 3, DOut: 1, DevStat: 2, FType: 2 },
        { AnalogueData: { 1: 14641, 2: 1250, 3: 2484, 4: 26, 5: 10868 }, FType: 6 },
      ] }],
    });
    expect(post(body).records).toEqual([
      {
        time: Date.UTC(2017, 4, 8, 18, 4, 57), valid: true, lat: 43.7370138, lng: -79.3462607, altitude: 197, speed: 3.6, course: 66, precision: 37,
        attributes: { index: 125, event: 11, ignition: true, input: 3, output: 1, status: 2, battery: 14.641, power: 12.5, deviceTemp: 24.84, rssi: 26, solarPower: 10.868 },
      },
    ]);
  });
  it('reads a newer upload without a position as a status record with counters', () => {
    const body = '{"date":"2021-12-12T16:04:52Z","device":{"sn":"416581","imei":"351358810439486"},"sqn":1549,"reason":42,"counters":[{"id":0,"val":5304},{"id":1,"val":8750},{"id":3,"val":3200}]}';
    expect(post(body).records).toEqual([{ time: Date.UTC(2021, 11, 12, 16, 4, 52), attributes: { index: 1549, event: 42, battery: 5.304, batteryLevel: 87.5, counter3: 3200 } }]);
  });
  it('reads a newer upload with a position', () => {
    const body = '{"date":"2021-10-04T18:14:55Z","device":{"imei":"352656106127312"},"sqn":40925,"reason":1,"lat":26.87366,"lng":-80.10618,"posAcc":47.7,"analogues":[{"id":1,"val":4265},{"id":4,"val":16}],"inputs":1,"outputs":0,"status":137}';
    expect(post(body).records).toEqual([
      { time: Date.UTC(2021, 9, 4, 18, 14, 55), valid: true, lat: 26.87366, lng: -80.10618, precision: 47.7, attributes: { index: 40925, event: 1, battery: 4.265, rssi: 16, ignition: true, input: 1, output: 0, status: 137 } },
    ]);
  });
});
