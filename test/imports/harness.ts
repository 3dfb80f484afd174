/**
 * A server for the place and zone tests: the real API (every call, real HTTP) on the test server's
 * database, with a scripted geocoder so addresses and coordinates are known in advance.
 */
import type { Services } from '../../src/api/kernel.ts';
import { buildApi } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import type { Geocoder, GeoResult } from '../../src/geocoder/types.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { UploadPool } from '../../src/imports/upload-pool.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

export const KNOWN: Record<string, GeoResult> = {
  berlin: { lat: 52.52, lng: 13.405, address: 'Berlin, Germany' },
  paris: { lat: 48.8566, lng: 2.3522, address: 'Paris, France' },
};

/** Reverse: "Near <lat>, <lng>" (null at 0,0); search: the KNOWN names; "explode" throws. */
export class ScriptedGeocoder implements Geocoder {
  reverseCalls = 0;
  searchCalls = 0;
  async reverse(lat: number, lng: number): Promise<GeoResult | null> {
    this.reverseCalls++;
    if (lat === 0 && lng === 0) return null;
    return { lat, lng, address: `Near ${lat.toFixed(2)}, ${lng.toFixed(2)}` };
  }
  async search(q: string): Promise<GeoResult[]> {
    this.searchCalls++;
    if (q === 'explode') throw new Error('provider down');
    const hit = KNOWN[q.trim().toLowerCase()];
    return hit ? [hit] : [];
  }
}

export interface GeoTestServer {
  s: TestServer;
  geocoder: ScriptedGeocoder;
  call(path: string, params?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  /** POST multipart: fields plus a file part named `file` (omitted when `file` is undefined). */
  upload(path: string, fields: Record<string, string>, file?: { name: string; type: string; data: string | Uint8Array }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startGeoTestServer(): Promise<GeoTestServer> {
  const s = await startTestServer();
  const config = loadConfig({ FSM_DATA_DIR: s.dataDir, FSM_LOG_LEVEL: 'silent', FSM_REDIRECT_ORIGINS: 'https://app.example.com' });
  const geocoder = new ScriptedGeocoder();
  // Only what the place and zone calls use; the rest of Services (gateway parts) stays unset here.
  // Uploads in a real worker pool, as the server runs them.
  const uploads = new UploadPool();
  const services = { config, store: s.store, mailer: createMailer(config.mail), now: Date.now, geocoder, uploads } as Partial<Services> as Services;
  const app = await buildApi(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v2/fsm/`;
  const parse = async (res: Response) => {
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text), headers: res.headers };
    } catch {
      return { status: res.status, body: text, headers: res.headers };
    }
  };
  return {
    s,
    geocoder,
    call: async (path, params = {}) => parse(await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) })),
    async upload(path, fields, file) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      if (file) form.set('file', new Blob([file.data as BlobPart], { type: file.type }), file.name);
      return parse(await fetch(url + path, { method: 'POST', body: form, redirect: 'manual' }));
    },
    async close() {
      await app.close();
      await uploads.close();
      await s.close();
    },
  };
}
