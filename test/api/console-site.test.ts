/**
 * The console served by the API's own server (issue 26, docs/console.md): the built page at / and
 * at its deep links, pre-compressed assets, the API and /docs untouched, the console's settings,
 * a self-hosted PMTiles file with range requests, and a clear page when the build is missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildConsole } from '../../web/console/build.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const html = { accept: 'text/html,application/xhtml+xml' };

describe('a built console', () => {
  let s: TestServer | undefined;
  let dir: string;
  beforeAll(async () => {
    await buildConsole({ ifNeeded: true, quiet: true });
    dir = mkdtempSync(join(tmpdir(), 'fsm-pmtiles-'));
    writeFileSync(join(dir, 'city.pmtiles'), Buffer.from('PMTiles-0123456789abcdef'));
    s = await startTestServer({ FSM_MAP_PMTILES_FILE: join(dir, 'city.pmtiles'), FSM_MAP_ATTRIBUTION: '© OpenStreetMap contributors' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('/ and its deep links answer the console page; the API and /docs keep their answers', async () => {
    const root = await fetch(`${s!.url}/`, { headers: html });
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(root.headers.get('cache-control')).toBe('no-cache');
    const page = await root.text();
    expect(page).toContain('<div id="root"></div>');
    expect(page).toContain('<title>Fleet console</title>');
    const deep = await fetch(`${s!.url}/history?tracker=5`, { headers: html });
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(page);
    // Not a browser's page request: the API's own answer.
    const json = await fetch(`${s!.url}/history`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect((await json.json()).status.code).toBe(3);
    const unknown = await fetch(`${s!.url}/v2/fsm/no/such/call`, { headers: html });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ success: false, status: { code: 3, description: 'Unknown API call: GET /v2/fsm/no/such/call. Calls live under /v2/fsm/ (also /v2/ and /api-v2/); see /docs' } });
    const missingAsset = await fetch(`${s!.url}/assets/nothing.js`, { headers: html });
    expect(missingAsset.status).toBe(404);
    expect((await s!.call('user/get_info', {})).body.status.code).toBe(4);
    const docs = await fetch(`${s!.url}/docs/json`);
    expect(docs.status).toBe(200);
    expect((await docs.json()).openapi).toMatch(/^3\./);
  });

  test('assets: content-hashed names cached for good, brotli when the browser takes it', async () => {
    const page = await (await fetch(`${s!.url}/`)).text();
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(page)![1];
    const res = await fetch(`${s!.url}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    const land = await fetch(`${s!.url}/basemap/land.json`);
    expect(land.status).toBe(200);
    expect((await land.json()).type).toBe('FeatureCollection');
  });

  test('/console/config.json gives the map settings; the PMTiles file is served by ranges', async () => {
    const res = await fetch(`${s!.url}/console/config.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ map: { style_url: null, tiles_url: null, pmtiles_url: '/console/basemap.pmtiles', attribution: '© OpenStreetMap contributors', max_zoom: 19 } });
    const part = await fetch(`${s!.url}/console/basemap.pmtiles`, { headers: { range: 'bytes=0-6' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('PMTiles');
  });
});

test('without a build, / explains how to build the console; the API still answers', async () => {
  const s = await startTestServer({ FSM_CONSOLE_DIR: join(tmpdir(), 'fsm-no-console-here') });
  try {
    const res = await fetch(`${s.url}/`, { headers: html });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).toContain('<h1>The operator console is not built</h1>');
    expect(text).toContain('npm run build:console');
    expect((await fetch(`${s.url}/console/config.json`)).status).toBe(200);
    expect((await s.call('user/get_info', {})).body.status.code).toBe(4);
  } finally {
    await s.close();
  }
});

test('map settings are validated at start', () => {
  expect(() => loadConfig({ FSM_MAP_TILES_URL: 'https://tile.example.org/tiles.png' })).toThrow(new ConfigError('FSM_MAP_TILES_URL must be a tile URL template with {z}, {x} and {y}, got "https://tile.example.org/tiles.png"'));
  expect(() => loadConfig({ FSM_MAP_TILES_URL: 'ftp://tile.example.org/{z}/{x}/{y}.png' })).toThrow(new ConfigError('FSM_MAP_TILES_URL must be an http(s) tile URL template, got "ftp://tile.example.org/{z}/{x}/{y}.png"'));
  expect(() => loadConfig({ FSM_MAP_STYLE_URL: 'style.json' })).toThrow(new ConfigError('FSM_MAP_STYLE_URL must be an http(s) URL, got "style.json"'));
  expect(() => loadConfig({ FSM_MAP_MAX_ZOOM: '30' })).toThrow(new ConfigError('FSM_MAP_MAX_ZOOM must be from 1 to 24, got 30'));
  const c = loadConfig({ FSM_MAP_TILES_URL: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', FSM_MAP_STYLE_URL: '/styles/city.json' });
  expect(c.console.map).toEqual({ styleUrl: '/styles/city.json', tilesUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', pmtilesFile: null, attribution: null, maxZoom: 19 });
});
