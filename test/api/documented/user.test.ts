/**
 * user/* and delivery as the public documentation writes the requests, checked for the documented
 * members of the answers (issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('user', () => {
  it('auth answers type "authenticated" and the hash; logout ends it', async () => {
    const r = await h.s.call('user/auth', { login: 'documented@example.com', password: 'secret-1' });
    expect(r.body).toEqual({ success: true, type: 'authenticated', hash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const get = await fetch(`${h.s.url}/v2/user/auth?login=documented%40example.com&password=secret-1`).then((x) => x.json());
    expect(get).toMatchObject({ success: true, type: 'authenticated' });
    await h.s.call('user/logout', { hash: r.body.hash }).then((x) => expect(x.body).toEqual({ success: true }));
    await h.s.call('user/logout', { hash: get.hash });
  });

  it('get_info, get_tariff_restrictions, settings/update, session/renew', async () => {
    const info = await h.documented('user/get_info', {}, ['paas_id', 'paas_settings', 'user_info', 'tariff_restrictions', 'premium_gis', 'features']);
    hasMembers(info.user_info, ['id', 'login', 'title', 'phone', 'creation_date', 'balance', 'bonus', 'locale', 'demo', 'verified', 'legal_type', 'default_geocoder', 'route_provider', 'time_zone', 'measurement_system', 'first_name', 'middle_name', 'last_name'], 'user_info');
    await h.documented('user/get_tariff_restrictions', {}, ['value']);
    // The spec's geocoder names (geocoder_type_N) stand for the documented provider names.
    // The documented request also carries translit, balance_alert_settings and file_storage_settings (settings we do not keep: taken, ignored).
    await h.documented('user/settings/update', { time_zone: 'Europe/Amsterdam', locale: 'nl_NL', measurement_system: 'metric', geocoder: 'geocoder_type_4', route_provider: 'route_provider_1', translit: false, balance_alert_settings: { emails: ['billing@example.com'] }, file_storage_settings: { auto_overwrite: true } });
    expect((await h.documented('user/get_info', {})).user_info).toMatchObject({ time_zone: 'Europe/Amsterdam', locale: 'nl_NL' });
    await h.documented('user/session/renew', {});
    await h.documented('user/settings/update', { time_zone: 'Europe/Berlin', locale: 'en_US' });
  });
});

describe('delivery', () => {
  it('user/session/delivery/create and read answer `value`; delivery/read and list with that session', async () => {
    const c = await h.documented('user/session/delivery/create', {}, ['value']);
    expect(c.value).toMatch(/^[0-9a-f]{32}$/);
    expect(await h.documented('user/session/delivery/read', {}, ['value'])).toEqual({ success: true, value: c.value });
    expect(await h.documentedGet('user/session/delivery/read', {}, ['value'])).toEqual({ success: true, value: c.value });
    await h.documented('task/create', { task: { tracker_id: h.tracker, location: { lat: 48.1, lng: 11.5, radius: 100 }, label: 'Parcel', description: '', from: '2020-01-01 08:00:00', to: '2099-01-01 10:00:00', external_id: '259876' } }, ['id']);
    const read = (await h.s.call('delivery/read', { hash: c.value, external_id: 259876 })).body;
    expect(read.success, JSON.stringify(read)).toBe(true);
    hasMembers(read, ['user_id', 'task', 'tracker', 'restrictions', 'first_name', 'middle_name', 'last_name', 'vehicle_label', 'estimated_time'], 'delivery/read');
    const list = (await h.s.call('delivery/list', { hash: c.value, external_id: 259876 })).body;
    hasMembers(list, ['list', 'user_id'], 'delivery/list');
    hasMembers(list.list[0], ['task', 'tracker', 'first_name', 'middle_name', 'last_name', 'vehicle_label', 'estimated_time'], 'delivery/list item');
  });
});
