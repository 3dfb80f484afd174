/**
 * Tiny fake Nominatim and Photon services on 127.0.0.1 (real HTTP) for the geocoder tests. They
 * record every request; `mode` makes them fail (HTTP 500), answer garbage, or answer too late.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | 'fail' | 'garbage' | 'slow';

export interface FakeService {
  url: string;
  requests: URL[];
  mode: FakeMode;
  close(): Promise<void>;
}

type Route = (u: URL) => unknown;

async function fake(routes: Record<string, Route>): Promise<FakeService> {
  const svc: FakeService = { url: '', requests: [], mode: 'ok', close: async () => {} };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    svc.requests.push(u);
    const send = () => {
      if (svc.mode === 'fail') return res.writeHead(500).end('boom');
      if (svc.mode === 'garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>');
      const route = routes[u.pathname];
      if (!route) return res.writeHead(404).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(route(u)));
    };
    if (svc.mode === 'slow') setTimeout(send, 1500);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  svc.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc.close = () => new Promise((r) => server.close(() => r()));
  return svc;
}

/** A place of the fake Nominatim (format jsonv2, addressdetails=1). */
export const SPRINGFIELD = {
  lat: '39.7990',
  lon: '-89.6440',
  display_name: '5, Main Street, Springfield, Sangamon County, Illinois, 62701, United States',
  address: { house_number: '5', road: 'Main Street', city: 'Springfield', county: 'Sangamon County', state: 'Illinois', postcode: '62701', country: 'United States', country_code: 'us' },
  boundingbox: ['39.7989', '39.7991', '-89.6441', '-89.6439'],
};

export function fakeNominatim(): Promise<FakeService> {
  return fake({
    '/search': (u) => (/springfield/i.test(u.searchParams.get('q') ?? '') ? [SPRINGFIELD] : []),
    // Nothing at the equator/meridian crossing: Nominatim's own "Unable to geocode" answer.
    '/reverse': (u) => (Number(u.searchParams.get('lat')) === 0 ? { error: 'Unable to geocode' } : SPRINGFIELD),
  });
}

export const PHOTON_FEATURE = {
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [13.3777, 52.5163] },
  properties: { osm_key: 'tourism', name: 'Brandenburger Tor', street: 'Pariser Platz', housenumber: '1', postcode: '10117', city: 'Berlin', state: 'Berlin', country: 'Deutschland', extent: [13.377, 52.517, 13.378, 52.516] },
};

export function fakePhoton(): Promise<FakeService> {
  const answer = (u: URL) => ({ type: 'FeatureCollection', features: /brandenburg/i.test(u.searchParams.get('q') ?? 'brandenburg') ? [PHOTON_FEATURE] : [] });
  return fake({ '/api': answer, '/reverse': answer });
}
