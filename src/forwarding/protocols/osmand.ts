/**
 * OsmAnd / Traccar HTTP, as a sender: one request per fix, as the phone apps send them, so a second
 * tracking server's OsmAnd listener takes us for a phone. `GET <url>?id=..&timestamp=..` or the same
 * parameters form-encoded in a POST body. A 2xx acknowledges the fix. A tracker's fixes go one after
 * another (order); trackers go in parallel.
 */
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';
import { authHeaders, post } from './json-webhook.ts';

const KMH_PER_KNOT = 1.852;

/** The query parameters of one fix (speed in knots, time in seconds). */
export function osmandParams(f: ForwardFix): URLSearchParams {
  const p = new URLSearchParams();
  p.set('id', f.deviceId);
  p.set('timestamp', String(Math.floor(f.time / 1000)));
  if (f.lat !== null && f.lng !== null) {
    p.set('lat', String(f.lat));
    p.set('lon', String(f.lng));
    p.set('valid', String(f.valid));
  }
  if (f.speed !== null) p.set('speed', String(f.speed / KMH_PER_KNOT));
  if (f.course !== null) p.set('bearing', String(f.course));
  if (f.alt !== null) p.set('altitude', String(f.alt));
  if (f.precision !== null) p.set('accuracy', String(f.precision));
  if (f.hdop !== null) p.set('hdop', String(f.hdop));
  if (typeof f.attrs.batteryLevel === 'number') p.set('batt', String(f.attrs.batteryLevel));
  for (const [k, v] of Object.entries(f.attrs)) {
    if (k === 'batteryLevel' || k === 'archive' || p.has(k)) continue;
    if (k === 'cells' && Array.isArray(v)) {
      for (const c of v as Array<Record<string, number>>) p.append('cell', [c.mcc, c.mnc, c.lac, c.cid].join(','));
    } else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') p.set(k, String(v));
  }
  return p;
}

function protocol(id: number, method: 'GET' | 'POST'): ForwardProtocol {
  return {
    id,
    name: `OsmAnd HTTP (${method === 'GET' ? 'GET query' : 'form POST'})`,
    hasLogin: true,
    hasPassword: true,
    requiredLogin: false,
    requiredPassword: false,
    url: true,
    defaultPort: 5055,
    sessions: 'shared',
    batch: 500,
    async open(target: Target, _deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
      const headers = authHeaders(target);
      const one = async (f: ForwardFix) => {
        const params = osmandParams(f);
        if (method === 'POST') return post(target.url!, params.toString(), 'application/x-www-form-urlencoded', headers, opts.timeoutMs);
        const url = new URL(target.url!);
        for (const [k, v] of params) url.searchParams.append(k, v);
        const res = await fetch(url, { headers, signal: AbortSignal.timeout(opts.timeoutMs) });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status < 200 || res.status > 299) throw new Error(`receiver answered HTTP ${res.status}`);
      };
      return {
        async send(fixes: ForwardFix[]) {
          const perTracker = new Map<string, ForwardFix[]>();
          for (const f of fixes) (perTracker.get(f.deviceId) ?? perTracker.set(f.deviceId, []).get(f.deviceId)!).push(f);
          await Promise.all([...perTracker.values()].map(async (list) => {
            for (const f of list) await one(f);
          }));
        },
        close() {},
      };
    },
  };
}

export const osmandGet = protocol(4, 'GET');
export const osmandPost = protocol(5, 'POST');
