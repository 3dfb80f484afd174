import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dragino.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: unknown) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(JSON.stringify(body)) }, ctx());
const uplink = (decoded: Record<string, unknown>) => ({ end_device_ids: { device_id: 'eui-a840412b81874509' }, uplink_message: { received_at: '2023-10-28T06:47:23.853335601Z', decoded_payload: decoded } });

describe('dragino replies', () => {
  it('answers 200 with an empty body, 400 without a device id', () => {
    expect(post(uplink({}))).toMatchObject({ status: 200, body: '', deviceId: 'eui-a840412b81874509' });
    expect(post({ uplink_message: {} }).status).toBe(400);
  });
});

describe('dragino decoding', () => {
  it('reads the decoded payload; 0,0 is not a valid fix', () => {
    const [f] = post(uplink({ ALARM_status: 'TRUE', BatV: 4.002, Hum: 67.9, Latitude: 0, Longitude: 0, Tem: 27.2 })).records!;
    expect(f).toEqual({ time: Date.parse('2023-10-28T06:47:23.853Z'), lat: 0, lng: 0, valid: false, attributes: { humidity: 67.9, battery: 4.002, temp1: 27.2, alarm: 'sos' } });
    expect(post(uplink({ Latitude: 52.1, Longitude: 5.2 })).records![0]).toMatchObject({ valid: true, lat: 52.1 });
  });
});
