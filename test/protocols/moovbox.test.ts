import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/moovbox.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });

describe('moovbox', () => {
  it('answers 200 and reads the crosswise latitude and longitude, speed in m/s', () => {
    const body = Buffer.from('<gps id="911"><coordinates><coordinate><fix>3</fix><time>1597580050</time><latitude>100.726257</latitude><longitude>13.821351</longitude><altitude>9.5</altitude><speed>2.5</speed><track>45.0</track><satellites>9</satellites></coordinate></coordinates></gps>');
    const r = protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body }, ctx());
    expect(r).toMatchObject({ status: 200, deviceId: '911' });
    expect(r.records).toEqual([{ time: 1597580050000, valid: true, lat: 13.821351, lng: 100.726257, altitude: 9.5, speed: 9, course: 45, satellites: 9, attributes: {} }]);
  });
  it('answers 400 without a device id', () => {
    expect(protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from('<gps></gps>') }, ctx())).toEqual({ status: 400 });
  });
});
