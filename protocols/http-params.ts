/** Query parameters of an HTTP protocol's request: the URI's query, or a form body when it has none. */
import { DecodeError, type HttpRequest } from './types.ts';

export function requestParams(req: HttpRequest, name: string, maxBody = 65536): URLSearchParams {
  if (req.body.length > maxBody) throw new DecodeError(`${name}: body too large`);
  const q = req.uri.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? req.uri.slice(q + 1) : '');
  return params.size || !req.body.length ? params : new URLSearchParams(req.body.toString('latin1'));
}
