/** The API kernel's conventions over real HTTP (issue 2): formats, mounts, auth, envelope, errors, redirect_target, /docs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApi, allCalls, type UploadedFile } from '../../src/api/server.ts';
import { defineCall, FileAnswer, type CallDef } from '../../src/api/kernel.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { ChatDelivery } from '../../src/gateway/chat.ts';
import { createGeocoder } from '../../src/geocoder/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let hash: string;
let trackerId: number;

beforeAll(async () => {
  s = await startTestServer({ FSM_BODY_LIMIT: '65536' });
  const u = await s.user('kernel@example.com');
  hash = u.hash;
  trackerId = s.addTracker(u.id, '350000000000001', { label: 'Truck 1' });
});
afterAll(() => s.close());

const listOk = (body: any) => {
  expect(body.success).toBe(true);
  expect(body.list.map((t: any) => t.id)).toEqual([trackerId]);
};

describe('request formats', () => {
  it('POST with a JSON body', async () => {
    const r = await s.call('tracker/list', { hash });
    expect(r.status).toBe(200);
    listOk(r.body);
  });
  it('POST form-urlencoded, nested values as JSON strings', async () => {
    const res = await fetch(`${s.url}/v2/fsm/tracker/read`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ hash, tracker_id: String(trackerId) }) });
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.value.label).toBe('Truck 1');
  });
  it('GET with the query string (mobile and PHP clients)', async () => {
    const body = await (await fetch(`${s.url}/v2/fsm/tracker/read?hash=${hash}&tracker_id=${trackerId}`)).json();
    expect(body.value.id).toBe(trackerId);
  });
  it('POST with parameters in the query string and an empty body', async () => {
    const body = await (await fetch(`${s.url}/v2/fsm/tracker/list?hash=${hash}`, { method: 'POST' })).json();
    listOk(body);
  });
  it('query and body merged', async () => {
    const body = await (await fetch(`${s.url}/v2/fsm/tracker/read?hash=${hash}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tracker_id: trackerId }) })).json();
    expect(body.value.id).toBe(trackerId);
  });
  it('hash from the Authorization: NVX header', async () => {
    const body = await (await fetch(`${s.url}/v2/fsm/tracker/list`, { method: 'POST', headers: { authorization: `NVX ${hash}` } })).json();
    listOk(body);
  });
});

describe('mount paths', () => {
  for (const mount of ['/v2/fsm/', '/v2/', '/api-v2/']) {
    for (const slash of ['', '/']) {
      it(`${mount}tracker/list${slash}`, async () => {
        const body = await (await fetch(`${s.url}${mount}tracker/list${slash}?hash=${hash}`)).json();
        listOk(body);
      });
    }
  }
});

describe('errors in the envelope', () => {
  it('unknown path', async () => {
    const res = await fetch(`${s.url}/v2/fsm/no/such/call`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, status: { code: 3, description: 'Unknown API call: POST /v2/fsm/no/such/call. Calls live under /v2/fsm/ (also /v2/ and /api-v2/); see /docs' } });
  });
  it('no hash, unknown hash', async () => {
    for (const params of [{}, { hash: 'f'.repeat(32) }]) {
      const r = await s.call('tracker/list', params);
      expect(r.status).toBe(403);
      expect(r.body.success).toBe(false);
      expect(r.body.status.code).toBe(4);
    }
  });
  it('a missing parameter gives 7 naming it', async () => {
    const r = await s.call('tracker/read', { hash });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, status: { code: 7, description: 'Invalid parameters: tracker_id' }, errors: [{ parameter: 'tracker_id', error: 'required' }] });
  });
  it('a wrong type gives 7 naming it', async () => {
    const r = await s.call('tracker/read', { hash, tracker_id: 'abc' });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe('tracker_id');
  });
  it('malformed JSON gives 7', async () => {
    const res = await fetch(`${s.url}/v2/fsm/tracker/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hash": ' });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.status.code).toBe(7);
    expect(body.errors[0].parameter).toBe('(body)');
  });
  it('a body over the limit is refused clearly, and nothing changes', async () => {
    const before = s.store.trackers.getAny(trackerId)!.phone;
    const res = await fetch(`${s.url}/v2/fsm/tracker/change_phone`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hash, tracker_id: trackerId, phone: '123456789', apn_name: 'x'.repeat(70000) }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, status: { code: 7, description: 'Request body is larger than the limit of 65536 bytes' }, errors: [{ parameter: '(body)', error: 'exceeds the limit of 65536 bytes' }] });
    expect(s.store.trackers.getAny(trackerId)!.phone).toBe(before);
  });
  it('an unsupported content type gives 7', async () => {
    const res = await fetch(`${s.url}/v2/fsm/tracker/list`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    const body = await res.json();
    expect(body.status.code).toBe(7);
  });
});

describe('OpenAPI', () => {
  it('serves the UI at /docs and a document listing every call', async () => {
    const ui = await fetch(`${s.url}/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
    const doc = await (await fetch(`${s.url}/docs/json`)).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const c of allCalls) expect(Object.keys(doc.paths)).toContain(`/v2/fsm/${c.path}`);
    expect(doc.paths['/v2/fsm/tracker/read'].post.requestBody.content['application/json'].schema.required).toEqual(['tracker_id']);
  });
});

describe('redirect_target on upload calls', () => {
  // An upload call of the kind issue 4 adds (place/upload, zone/upload), mounted next to the real ones.
  const echo = defineCall({
    path: 'test/upload',
    summary: 'echo an uploaded file',
    access: 'public',
    upload: true,
    params: z.object({ label: z.string(), file: z.custom<UploadedFile>((v) => !!v && typeof v === 'object' && Buffer.isBuffer((v as UploadedFile).data)) }),
    handler: ({ params }) => ({ label: params.label, name: params.file.filename, size: params.file.data.length }),
  });
  const download = defineCall({
    path: 'test/download',
    summary: 'a file named by the caller',
    access: 'public',
    params: z.object({ name: z.string() }),
    handler: ({ params }) => new FileAnswer('<kml/>', 'application/vnd.google-earth.kml+xml', params.name),
  });
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const config = loadConfig({ FSM_DATA_DIR: s.dataDir, FSM_LOG_LEVEL: 'silent', FSM_REDIRECT_ORIGINS: 'https://app.example.com,http://intranet.example.com:8081' });
    const app = await buildApi({ config, store: s.store, mailer: createMailer(config.mail), now: Date.now, chat: new ChatDelivery(s.store.chat), geocoder: createGeocoder(config.geocoder, { cache: s.store.geocache }) }, { logger: false, calls: [...allCalls, echo, download] as CallDef[] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    close = () => app.close();
  });
  afterAll(() => close());

  const form = (extra: Record<string, string>) => {
    const f = new FormData();
    f.set('label', 'layer');
    f.set('file', new Blob(['<kml/>'], { type: 'application/vnd.google-earth.kml+xml' }), 'a.kml');
    for (const [k, v] of Object.entries(extra)) f.set(k, v);
    return f;
  };

  it('multipart fields and files reach the call', async () => {
    const body = await (await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({}) })).json();
    expect(body).toEqual({ success: true, label: 'layer', name: 'a.kml', size: 6 });
  });
  it('redirects to <target>?response=<urlencoded json> on success', async () => {
    const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({ redirect_target: 'https://app.example.com/done' }), redirect: 'manual' });
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe('https://app.example.com/done');
    expect(JSON.parse(loc.searchParams.get('response')!)).toEqual({ success: true, label: 'layer', name: 'a.kml', size: 6 });
  });
  it('redirects with the failure too', async () => {
    const f = new FormData();
    f.set('redirect_target', 'https://app.example.com/done?x=1');
    const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: f, redirect: 'manual' });
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.searchParams.get('x')).toBe('1');
    expect(JSON.parse(loc.searchParams.get('response')!).status.code).toBe(7);
  });
  it('a malformed redirect_target is 7', async () => {
    const body = await (await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({ redirect_target: 'not a url' }) })).json();
    expect(body.status.code).toBe(7);
    expect(body.errors[0].parameter).toBe('redirect_target');
  });

  // Issue 10, item 10: only http(s), only allowed origins, and what a header cannot carry is percent-encoded.
  const refused = async (target: string, error: string) => {
    const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({ redirect_target: target }), redirect: 'manual' });
    expect(res.status, target).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ success: false, status: { code: 7, description: 'Invalid parameters: redirect_target' }, errors: [{ parameter: 'redirect_target', error }] });
  };
  it('refuses javascript:, data: and file: targets with 7, without a Location', async () => {
    await refused('javascript:alert(document.cookie)', 'must be an http(s) URL, not javascript:');
    await refused('data:text/html,<script>alert(1)</script>', 'must be an http(s) URL, not data:');
    await refused('file:///etc/passwd', 'must be an http(s) URL, not file:');
    await refused('JavaScript:alert(1)', 'must be an http(s) URL, not javascript:');
  });
  it('refuses origins the operator did not allow (no open redirect), also to unauthenticated requests', async () => {
    await refused('https://evil.example.net/phish', 'the origin https://evil.example.net is not allowed (FSM_REDIRECT_ORIGINS)');
    await refused('http://app.example.com/done', 'the origin http://app.example.com is not allowed (FSM_REDIRECT_ORIGINS)');
    await refused('https://app.example.com:8443/done', 'the origin https://app.example.com:8443 is not allowed (FSM_REDIRECT_ORIGINS)');
    await refused('https://user:pw@app.example.com/done', 'must not carry a user name or password');
  });
  it('follows listed origins and the server\'s own', async () => {
    for (const target of ['http://intranet.example.com:8081/upload-done', `${url}/after-upload`]) {
      const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({ redirect_target: target }), redirect: 'manual' });
      expect(res.status, target).toBe(303);
      expect(res.headers.get('location')!.startsWith(`${target}?response=`)).toBe(true);
    }
  });
  it('percent-encodes U+2028 and € of a target instead of failing, and keeps its #fragment last', async () => {
    const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: form({ redirect_target: 'https://app.example.com/pay/€?note=a\u2028b#top' }), redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^https:\/\/app\.example\.com\/pay\/%E2%82%AC\?note=a%E2%80%A8b&response=[^#]+#top$/);
    const loc = new URL(location);
    expect(loc.searchParams.get('note')).toBe('a\u2028b');
    expect(JSON.parse(loc.searchParams.get('response')!)).toEqual({ success: true, label: 'layer', name: 'a.kml', size: 6 });
  });
  it('FSM_REDIRECT_ORIGINS takes http(s) origins only, normalized', () => {
    expect(loadConfig({ FSM_REDIRECT_ORIGINS: ' https://App.Example.com/ , http://10.0.0.5:8081' }).http.redirectOrigins).toEqual(['https://app.example.com', 'http://10.0.0.5:8081']);
    expect(loadConfig({}).http.redirectOrigins).toEqual([]);
    for (const bad of ['ftp://files.example.com', 'https://app.example.com/path', 'app.example.com', 'javascript:alert(1)']) {
      expect(() => loadConfig({ FSM_REDIRECT_ORIGINS: bad }), bad).toThrow(`FSM_REDIRECT_ORIGINS must list http(s) origins such as https://app.example.com, got "${bad}"`);
    }
  });
  it('a file name with U+2028 or € is carried in filename*, not a 500', async () => {
    const res = await fetch(`${url}/v2/fsm/test/download?name=${encodeURIComponent('Zone\u2028 €.kml')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Zone_ _.kml"; filename*=UTF-8''Zone%E2%80%A8%20%E2%82%AC.kml`);
    const plain = await fetch(`${url}/v2/fsm/test/download?name=track_1.kml`);
    expect(plain.headers.get('content-disposition')).toBe('attachment; filename="track_1.kml"');
  });
  it('a label with non-Latin-1 text in the answer is carried too', async () => {
    const f = form({ redirect_target: 'https://app.example.com/done' });
    f.set('label', 'Zone \u2028 €');
    const res = await fetch(`${url}/v2/fsm/test/upload`, { method: 'POST', body: f, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(JSON.parse(new URL(res.headers.get('location')!).searchParams.get('response')!).label).toBe('Zone \u2028 €');
  });
});
