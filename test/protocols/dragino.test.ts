import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dragino.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const post = (body: unknown): HttpRequest => ({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const uplink = (payload: Record<string, unknown>) => ({
  end_device_ids: { device_id: 'eui-a840412b81874509', dev_eui: 'A840412B81874509' },
  received_at: '2023-10-28T06:47:23.853Z',
  uplink_message: { f_port: 2, decoded_payload: payload, rx_metadata: [{ rssi: -101, snr: 8.5 }] },
});

describe('dragino replies', () => {
  it('answers 200 to an uplink, 400 to a body without a device EUI', () => {
    expect(protocol.decodeHttp!(post(uplink({ Latitude: 0, Longitude: 0 })), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post({ uplink_message: {} }), ctx)).toEqual({ status: 400 });
    expect(protocol.decodeHttp!(post('x'), ctx)).toEqual({ status: 400 });
  });
});

describe('dragino decoding', () => {
  it('reads the decoded payload: fix, battery, temperature, humidity, alarm, and the gateway RSSI', () => {
    expect(protocol.decodeHttp!(post(uplink({ Latitude: 42.3519, Longitude: -87.9094, BatV: 4.002, Tem: 27.2, Hum: 67.9, ALARM_status: 'TRUE' })), ctx)).toEqual({
      deviceId: 'A840412B81874509',
      status: 200,
      records: [
        { time: Date.UTC(2023, 9, 28, 6, 47, 23, 853), valid: true, lat: 42.3519, lng: -87.9094, attributes: { battery: 4.002, temp1: 27.2, humidity: 67.9, rssi: -101, alarm: 'sos' } },
      ],
    });
  });
  it('keeps 0/0 (no fix yet) as a not-valid fix', () => {
    expect(protocol.decodeHttp!(post(uplink({ Latitude: 0, Longitude: 0, ALARM_status: 'FALSE' })), ctx).records![0]).toMatchObject({ valid: false, attributes: { rssi: -101 } });
  });
});
