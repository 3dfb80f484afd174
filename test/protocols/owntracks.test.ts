import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/owntracks.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: string) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) }, ctx());

describe('owntracks replies', () => {
  // OwnTracks HTTP mode: the app expects 200 and reads the body as a JSON array of messages for it (empty here).
  it('answers a location and other message types with 200 and [], a body without identity with 400', () => {
    const r = post('{"_type":"location","lat":48.85833,"lon":2.29513,"tst":1497349316,"tid":"JJ"}');
    expect([r.status, r.body, r.deviceId]).toEqual([200, '[]', 'JJ']);
    expect(post('{"_type":"transition","tid":"JJ"}')).toEqual({ status: 200, body: '[]' });
    expect(post('{"_type":"location","lat":1,"lon":2,"tst":3}').status).toBe(400);
    expect(post('nope').status).toBe(400);
  });
});

describe('owntracks decoding', () => {
  it('reads a location: km/h, accuracy, battery, trigger, cell; the topic names the device', () => {
    const r = post('{"topic":"owntracks/qtripp/865284041968706","lat":47.420051,"lon":13.654704,"vel":10,"cog":113,"tst":1736519167,"mcc":232,"mnc":1,"lac":"4F4D","cid":"673A","_type":"location","acc":10,"alt":1113,"t":"I","batt":50,"uext":12.5,"odometer":1.5,"hmc":3600}');
    expect(r.deviceId).toBe('owntracks/qtripp/865284041968706');
    expect(r.records![0]).toEqual({
      time: 1736519167000, valid: true, lat: 47.420051, lng: 13.654704, speed: 10, altitude: 1113, course: 113, precision: 10,
      cells: [{ mcc: 232, mnc: 1, lac: 0x4f4d, cid: 0x673a }],
      attributes: { event: 'I', ignition: false, batteryLevel: 50, power: 12.5, odometer: 1500, hours: 3_600_000 },
    });
  });
  it('maps harsh-driving triggers by report type', () => {
    expect(post('{"_type":"location","lat":1,"lon":2,"tst":3,"tid":"A","t":"h","rty":4}').records![0].attributes.alarm).toBe('hardAcceleration');
  });
});
