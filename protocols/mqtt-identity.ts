/** Shared by MQTT protocols whose devices connect with their IMEI (or serial) as the client id. */
import { DecodeError, type DecodeResult } from './types.ts';

export function clientIdentity(name: string, clientId: string): DecodeResult {
  const id = clientId.trim();
  if (!/^[\x21-\x7e]{1,64}$/.test(id)) throw new DecodeError(`${name}: bad client id`);
  return { deviceId: id };
}
