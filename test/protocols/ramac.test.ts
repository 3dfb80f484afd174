import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/ramac.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'http', config: {}, session: {} });
const post = (body: object | string, c = ctx()) =>
  protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) }, c);

describe('ramac', () => {
  it('decodes an alert with its location and answers 200 with the case ids', () => {
    const r = post({ PacketType: 2, SeqNumber: 4, UpdateDate: '2022-05-06 12:25:35', Alert: 19, AlertMessage: 'P1 Panic', Event: 16, DeviceId: 'A10001', DeviceType: '12', Latitude: -25.875867359392, Longitude: 28.179579268669, LocationDateTime: '2022-05-05 08:48:11' });
    expect(r).toMatchObject({ deviceId: 'A10001', status: 200, body: '{"CaseID":1,"EventID":1}' });
    expect(r.records).toEqual([
      { time: Date.UTC(2022, 4, 5, 8, 48, 11), valid: true, lat: -25.875867359392, lng: 28.179579268669, attributes: { packetType: 2, index: 4, event: 16, alert: 19, alertMessage: 'P1 Panic', alarm: 'sos' } },
    ]);
  });

  it('places a status packet at the last fix, not valid', () => {
    const c = ctx();
    post({ PacketType: 1, SeqNumber: 4, UpdateDate: '2022-05-06 12:25:35', Alert: 0, AlertMessage: '', Latitude: -25.5, Longitude: 28.1, Speed: 1, COG: 3, DeviceId: 'A10001' }, c);
    const r = post({ PacketType: 0, SeqNumber: 5, UpdateDate: '2022-05-06 12:30:00', Alert: 42, AlertMessage: 'Low Battery', BatteryPercentage: 4, Battery: 0.1, Temperature: -22, DeviceId: 'A10001' }, c);
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2022, 4, 6, 12, 30), lat: -25.5, lng: 28.1, valid: false, attributes: { alarm: 'lowBattery', batteryLevel: 4, battery: 0.1, deviceTemp: -22 } });
  });

  it('answers 400 without a device id or for a body that is not JSON', () => {
    expect(post({ PacketType: 0 })).toEqual({ status: 400 });
    expect(post('not json')).toEqual({ status: 400 });
  });
});
