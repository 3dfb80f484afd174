import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/sigfox.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config, session: {} });
const post = (body: string, config = {}) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(body) }, ctx(config));

describe('sigfox replies', () => {
  // The Sigfox backend only needs a 2xx to a callback (no downlink is asked for here).
  it('answers a callback with HTTP 200 and an empty body; 400 without a device id or JSON', () => {
    const r = post('{"device":"BFE47E","time":1590497040,"data":"10297eb01e621122070000be"}');
    expect([r.status, r.body, r.deviceId]).toEqual([200, '', 'BFE47E']);
    expect(post('{"time":1}').status).toBe(400);
    expect(post('nonsense').status).toBe(400);
  });
});

describe('sigfox decoding', () => {
  it('reads the 12-byte little-endian fix: 1e-7 degrees, course / 2, km/h, battery / 40 V', () => {
    const [f] = post('{"device":"2BF839","time":1510605882,"data":"00bd6475e907398e562d01b9","rssi":-98.0,"seqNumber":228}').records!;
    expect(f).toMatchObject({ time: 1510605882000, valid: true, course: 90, speed: 1, attributes: { battery: 4.625, rssi: -98, index: 228 } });
    expect(f.lat).toBeCloseTo(-37.8182467, 7);
    expect(f.lng).toBeCloseTo(145.2161287, 7);
  });
  it('reads sign-and-magnitude micro-degrees (header 0x1f) and the Amber model', () => {
    const [f] = post('{"device":"33827B","data":"1f03198e63807f08836402ff","time":"1574346702"}').records!;
    expect([f.lat, f.lng, f.attributes.batteryLevel]).toEqual([52.006499, -8.325251, 100]);
    const [g] = post('{"deviceId":"284019F","timestamp":"1707375610","data":"0100b019ffe8645d0019e513"}', { modelOverride: 'Amber' }).records!;
    expect(g.attributes).toEqual({ motion: false, battery: 3.52, temp1: 25 });
    expect(g.lat).toBeCloseTo(-1547171 / 60000, 9);
  });
  it('reads payload items: SOS events, float position, Wi-Fi, battery', () => {
    expect(post('{"device":"40D310","payload":"62","time":1563043532}').records![0].attributes).toEqual({ event: 0x62, alarm: 'sos' });
    expect(post('{"device":"40D310","payload":"20061494480389f956042a"}').records![0].attributes).toEqual({ event: 0x20, wifi: '14:94:48:03:89:f9,86', battery: 4.2 });
    const [f] = post('{"device":"1CEDCE","payload":"2002419b4a91c2c6580e0564"}').records!;
    expect(f.lat).toBeCloseTo(19.4114, 3);
    expect(f.attributes.batteryLevel).toBe(100);
  });
  it('takes a backend location and the status fields, a URL-encoded body too', () => {
    const [f] = post('%7B%22device%22%3A%2249F941%22%2C%22location%22%3A%7B%22lat%22%3A19.5%2C%22lng%22%3A-99.1%2C%22radius%22%3A1983%7D%2C%22moving%22%3A%22true%22%2C%22magStatus%22%3Afalse%2C%22temperature%22%3A%227.5%22%7D=').records!;
    expect(f).toMatchObject({ lat: 19.5, lng: -99.1, precision: 1983, attributes: { motion: true, blocked: false, deviceTemp: 7.5 } });
  });
});
