/**
 * user/settings/read as documented: the settings object (time zone, locale, measurement system,
 * geocoder, route provider, translit) as user/settings/update changes it; a master also gets
 * file_storage_settings and balance_alert_settings (documented as needing the right admin, which
 * no sub-user holds), answered as what the server does: files are never overwritten, no alerts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, type Documented } from './harness.ts';

let d: Documented;
beforeAll(async () => {
  d = await documentedServer('settings-doc@example.com', 'Europe/Amsterdam');
});
afterAll(() => d?.close());

describe('user/settings/read', () => {
  it("answers a master's settings with the file storage and balance alert settings", async () => {
    expect(await d.call('user/settings/read')).toEqual({
      success: true,
      settings: { time_zone: 'Europe/Amsterdam', locale: 'en', measurement_system: 'metric', geocoder: 'geocoder_type_1', route_provider: 'route_provider_1', translit: false },
      file_storage_settings: { auto_overwrite: false },
      balance_alert_settings: { emails: [] },
    });
  });
  it('shows what user/settings/update changed; takes the documented GET query string', async () => {
    expect(await d.call('user/settings/update', { time_zone: 'America/New_York', locale: 'nl_NL', measurement_system: 'imperial' })).toEqual({ success: true });
    const res = await fetch(`${d.s.url}/v2/user/settings/read?hash=${d.hash}`);
    expect((await res.json()).settings).toEqual({ time_zone: 'America/New_York', locale: 'nl_NL', measurement_system: 'imperial', geocoder: 'geocoder_type_1', route_provider: 'route_provider_1', translit: false });
  });
  it("a sub-user reads its own settings, without the admin-only members (created with its master's locale and units)", async () => {
    const sub = await d.s.user('settings-sub@example.com', { parent: 'settings-doc@example.com', rights: [], timeZone: 'Asia/Tokyo' });
    expect((await d.s.call('user/settings/read', { hash: sub.hash })).body).toEqual({
      success: true,
      settings: { time_zone: 'Asia/Tokyo', locale: 'nl_NL', measurement_system: 'imperial', geocoder: 'geocoder_type_1', route_provider: 'route_provider_1', translit: false },
    });
  });
  it('update takes the documented request whole: geocoder and route provider by their documented names, the rest without effect', async () => {
    const documented = { time_zone: 'Europe/Amsterdam', locale: 'nl_NL', measurement_system: 'metric', geocoder: 'osm', route_provider: 'osrm', translit: false, balance_alert_settings: { emails: ['a@example.com'] }, file_storage_settings: { auto_overwrite: true } };
    expect(await d.call('user/settings/update', documented)).toEqual({ success: true });
    expect(await d.call('user/settings/read')).toEqual({
      success: true,
      settings: { time_zone: 'Europe/Amsterdam', locale: 'nl_NL', measurement_system: 'metric', geocoder: 'geocoder_type_4', route_provider: 'route_provider_3', translit: false },
      file_storage_settings: { auto_overwrite: false },
      balance_alert_settings: { emails: [] },
    });
    // The spec's own identifiers too; only the members given change.
    expect(await d.call('user/settings/update', { geocoder: 'geocoder_type_2' })).toEqual({ success: true });
    expect((await d.call('user/settings/read')).settings).toMatchObject({ geocoder: 'geocoder_type_2', route_provider: 'route_provider_3', measurement_system: 'metric' });
    // An unknown name: 7 naming it, nothing changed.
    const bad = (await d.s.call('user/settings/update', { hash: d.hash, route_provider: 'here', locale: 'de_DE' })).body;
    expect(bad).toMatchObject({ success: false, status: { code: 7 }, errors: [{ parameter: 'route_provider' }] });
    expect((await d.call('user/settings/read')).settings).toMatchObject({ locale: 'nl_NL', route_provider: 'route_provider_3' });
    expect(await d.call('user/settings/update', { measurement_system: 'imperial' })).toEqual({ success: true });
  });
  it('4 without a session, and only the hash is read (other parameters are ignored)', async () => {
    expect((await d.s.call('user/settings/read', {})).body.status.code).toBe(4);
    expect((await d.call('user/settings/read', { locale: 'xx' })).settings.locale).toBe('nl_NL');
  });
});
