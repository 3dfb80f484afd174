/**
 * SPOT (Globalstar SPOT Trace / Gen devices) via the SPOT shared-page XML feed, POSTed by a poller:
 *   <messageList><message><esnName>..</esnName><messageType>..</messageType><timestamp>ISO</timestamp>
 *   <latitude>..</latitude><longitude>..</longitude>...</message>...</messageList>
 * Each message is stored under the device its `esnName` names. Answered 200.
 */
import { Attr } from './attributes.ts';
import { xmlElements, xmlValue } from './http-params.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 1048576;

function message(xml: string): DeviceRecord | undefined {
  const deviceId = xmlValue(xml, 'esnName');
  const [lat, lng, time] = [Number(xmlValue(xml, 'latitude')), Number(xmlValue(xml, 'longitude')), Date.parse(xmlValue(xml, 'timestamp') ?? '')];
  if (!deviceId || !(Math.abs(lat) <= 90 && Math.abs(lng) <= 180) || !Number.isFinite(time)) return undefined;
  const rec: DeviceRecord = { deviceId, time, valid: true, lat, lng, attributes: {} };
  const type = xmlValue(xml, 'messageType');
  if (type) rec.attributes[Attr.event] = type;
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('spot: body too large');
  const records = xmlElements(req.body.toString('utf8'), 'message').map(message).filter((r): r is DeviceRecord => !!r);
  return { deviceId: records[0]?.deviceId, records, status: 200 };
}

export const protocol: Protocol = {
  name: 'spot',
  defaultPort: 5156,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
