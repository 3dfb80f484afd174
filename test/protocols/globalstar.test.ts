import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/globalstar.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 1, 2, 3), transport: 'http', config, session: {} });
const post = (body: string, config = {}) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(body) }, ctx(config));
const XML = (payload: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><stuMessages timeStamp="25/03/2020 03:02:32 GMT" messageID="300421a0fd2a100585bdde409d6f601a"><stuMessage><esn>0-2682225</esn><unixTime>1585105370</unixTime><gps>N</gps><payload length="9" source="pc" encoding="hex">${payload}</payload></stuMessage></stuMessages>`;

describe('globalstar replies', () => {
  // The data service expects an stuResponseMsg naming its message as correlationID (state pass); the exact layout
  // follows the widely used open-source server, not a public document at hand.
  it('answers XML messages with an stuResponseMsg naming the request', () => {
    expect(post(XML('0x00C583EACD37210A00')).body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><stuResponseMsg xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://cody.glpconnect.com/XSD/StuResponse_Rev1_0.xsd" deliveryTimeStamp="22/02/2025 01:02:03 GMT" messageID="00000000000000000000000000000000" correlationID="300421a0fd2a100585bdde409d6f601a"><state>pass</state><stateMessage>Store OK</stateMessage></stuResponseMsg>',
    );
  });
  it('answers JSON with an empty 200 and anything else with 400', () => {
    expect(post('{"entry":{"devices":[]}}')).toMatchObject({ status: 200, body: '' });
    expect(post('nope').status).toBe(400);
  });
});

describe('globalstar decoding', () => {
  it('reads a standard XML payload', () => {
    expect(post(XML('0x00C583EACD37210A00')).records).toEqual([{ deviceId: '0-2682225', time: 1585105370000, valid: true, lat: -41.12206220626831, lng: -71.41591787338257, attributes: { input: 10, motion: false } }]);
  });
  it('skips an AtlasTrax payload without a fix', () => {
    expect(post(XML('0x63FFFF1BB4FFFFFFFF'), { modelOverride: 'AtlasTrax' }).records).toEqual([]);
  });
  it('reads JSON devices; one without coordinates is a not-valid 0,0 before any fix', () => {
    const r = post('{"entry":{"devices":[{"gpsCoordinate":{"latitude":"","longitude":""},"deviceIdentify":{"esn":"0-99990","unixTime":1034268516},"deviceInfo":{"batteryStatus":"Low","gpsDataValid":"Invalid"}}]}}');
    expect(r.records).toEqual([{ deviceId: '0-99990', time: 1034268516000, valid: false, lat: 0, lng: 0, attributes: { alarm: 'lowBattery' } }]);
  });
});
