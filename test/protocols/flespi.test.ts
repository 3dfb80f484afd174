import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/flespi.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: string) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) }, ctx());

describe('flespi replies', () => {
  it('answers a batch with HTTP 200 and an empty body; 400 for a body that is not a JSON array', () => {
    const r = post('[{"ident":"605630","timestamp":1506956075,"position.latitude":53.90573,"position.longitude":27.455848}]');
    expect([r.status, r.body]).toEqual([200, '']);
    expect(post('{"ident":"1"}').status).toBe(400);
    expect(post('not json').status).toBe(400);
  });
});

describe('flespi decoding', () => {
  it('maps position, time, validity and the known parameters', () => {
    const r = post(
      '[{"ident":"605630","timestamp":1508508510.5,"position.latitude":53.90821,"position.longitude":27.524165,"position.altitude":300,"position.direction":90,"position.speed":36,"position.satellites":7,"position.hdop":1.1,"position.valid":false,"din":3,"dout":1,"ain#1":1.5,"engine.ignition.status":true,"external.powersource.voltage":15.298,"battery.voltage":4.088,"gsm.signal.level":70,"vehicle.mileage":160,"refrigerator.sensor.temperature#2":68.2,"alarm.event.trigger":true}]',
    );
    expect(r.deviceId).toBe('605630');
    expect(r.records![0]).toEqual({
      deviceId: '605630',
      time: 1508508510500,
      valid: false,
      lat: 53.90821,
      lng: 27.524165,
      altitude: 300,
      course: 90,
      speed: 36,
      satellites: 7,
      hdop: 1.1,
      attributes: { alarm: 'general', input: 3, output: 1, adc1: 1.5, ignition: true, power: 15.298, battery: 4.088, rssi: 70, odometer: 160000, temp2: 68.2 },
    });
  });
  it('a batch is identified by its first ident, each record names its own; messages without ident are skipped', () => {
    const r = post('[{"timestamp":1},{"ident":"a","timestamp":2},{"ident":"b","timestamp":3},{"ident":"a","timestamp":4}]');
    expect(r.deviceId).toBe('a');
    expect(r.records!.map((x) => [x.deviceId, x.time])).toEqual([['a', 2000], ['b', 3000], ['a', 4000]]);
  });
});
