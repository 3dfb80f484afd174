/** Users, tariffs, sessions, the failed-login journal and the change counters (docs/store.md). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import { engines } from './engines.ts';

const DAY = 86_400_000;

describe.each(engines('users', 'sessions', 'tariffs', 'authVersions'))('$name engine: accounts', (engine) => {
  let data: DataStore;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ data, dispose } = await engine.open());
  });
  afterEach(async () => dispose?.());

  it('creates a master with defaults and a sub-user inheriting its dealer, tariff and settings', async () => {
    const ann = await data.users.create({ login: ' Ann@Example.com ', passwordHash: 'h', timeZone: 'Europe/Berlin', locale: 'de', now: 1000 });
    const row = await data.users.get(ann);
    expect(row).toMatchObject({ id: ann, parent_id: null, dealer_id: 1, tariff_id: 1, login: 'Ann@Example.com', login_key: 'ann@example.com', password_hash: 'h', rights: '[]', dealer_blocked: 0, demo: 0, activated: 1, activation_sent_at: null, time_zone: 'Europe/Berlin', locale: 'de', measurement_system: 'metric', balance: 0, legal_name: null, creation_date: 1000 });
    const clerk = await data.users.create({ login: 'clerk@example.com', passwordHash: 'h', parentId: ann, rights: ['tag_update'], activated: false, now: 2000 });
    expect(await data.users.get(clerk)).toMatchObject({ parent_id: ann, rights: '["tag_update"]', activated: 0, time_zone: 'Europe/Berlin', locale: 'de' });
    expect((await data.users.findByLogin('  ANN@example.COM'))?.id).toBe(ann);
    expect(await data.users.findByLogin('nobody@example.com')).toBeUndefined();
    expect(await data.users.count()).toBe(2);
    expect((await data.users.subUsers(ann)).map((u) => u.id)).toEqual([clerk]);
    await expect(data.users.create({ login: 'ann@example.com', passwordHash: 'h', now: 0 })).rejects.toThrow();
    expect(await data.users.count()).toBe(2);
  });

  it('a principal: the user, the owner of its entities, and whether the dealer blocked it; changes seen at once', async () => {
    const ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'h', now: 0 });
    const clerk = await data.users.create({ login: 'clerk@example.com', passwordHash: 'h', parentId: ann, now: 0 });
    const p = await data.users.principal(clerk);
    expect([p?.user.id, p?.owner.id, p?.dealerBlocked]).toEqual([clerk, ann, false]);
    await data.users.setDealerBlocked(ann, true);
    expect((await data.users.principal(clerk))?.dealerBlocked).toBe(true);
    expect(await data.users.isDealerBlocked((await data.users.get(ann))!)).toBe(true);
    await data.users.setDealerBlocked(ann, false);
    expect((await data.users.principal(clerk))?.dealerBlocked).toBe(false);
    expect(await data.users.principal(999999)).toBeUndefined();
    await data.users.updateSettings(ann, { time_zone: 'Asia/Tokyo' });
    expect(await data.users.get(ann)).toMatchObject({ time_zone: 'Asia/Tokyo', locale: 'en', default_geocoder: 'geocoder_type_1' });
    await data.users.updateSettings(ann, { default_geocoder: 'geocoder_type_4', route_provider: 'route_provider_3', locale: undefined });
    expect(await data.users.get(ann)).toMatchObject({ time_zone: 'Asia/Tokyo', locale: 'en', default_geocoder: 'geocoder_type_4', route_provider: 'route_provider_3' });
    await data.users.setActivated(clerk);
    await data.users.setActivationSent(clerk, 5000);
    expect(await data.users.get(clerk)).toMatchObject({ activated: 1, activation_sent_at: 5000 });
  });

  it('tariffs: a copy changes nobody else; a master and its sub-users move together', async () => {
    const ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'h', now: 0 });
    const clerk = await data.users.create({ login: 'clerk@example.com', passwordHash: 'h', parentId: ann, now: 0 });
    const t = await data.tariffs.copy(1, 'gold');
    await data.tariffs.update(t, { max_places: 5, has_chat: false, allowed_maps: ['osm', 'google'] });
    expect(await data.tariffs.get(t)).toMatchObject({ id: t, name: 'gold', max_places: 5, has_chat: 0, allowed_maps: '["osm","google"]' });
    expect(await data.tariffs.get(1)).toMatchObject({ max_places: 10000, has_chat: 1 });
    await data.users.setTariff(ann, t);
    expect([(await data.users.get(ann))?.tariff_id, (await data.users.get(clerk))?.tariff_id]).toEqual([t, t]);
  });

  it('sessions: found while used within their lifetime, touched at most once a minute, gone when expired', async () => {
    const ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'h', now: 0 });
    const hash = await data.sessions.create(ann, 'user', 1000);
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(await data.sessions.find(hash, 1000 + 30_000, DAY)).toEqual({ hash, user_id: ann, type: 'user', created: 1000, last_used: 1000 });
    expect((await data.sessions.find(hash, 1000 + 90_000, DAY))?.last_used).toBe(91_000);
    expect(await data.sessions.alive(hash, 91_000 + DAY - 1, DAY)).toBeDefined();
    expect(await data.sessions.activeCount(ann, 'user', 91_000, DAY)).toBe(1);
    await data.sessions.renew(hash, 200_000);
    expect((await data.sessions.alive(hash, 200_000, DAY))?.last_used).toBe(200_000);
    expect(await data.sessions.find(hash, 200_000 + DAY + 1, DAY)).toBeUndefined();
    // Deleted when found expired.
    expect(await data.sessions.find(hash, 200_000, DAY)).toBeUndefined();
    const d1 = await data.sessions.create(ann, 'delivery', 1);
    const d2 = await data.sessions.create(ann, 'delivery', 2);
    expect((await data.sessions.ofType(ann, 'delivery'))?.hash).toBe(d2);
    await data.sessions.deleteOfType(ann, 'delivery');
    expect(await data.sessions.ofType(ann, 'delivery')).toBeUndefined();
    expect(await data.sessions.find(d1, 3, DAY)).toBeUndefined();
    const old = await data.sessions.create(ann, 'user', 0);
    const fresh = await data.sessions.create(ann, 'user', DAY);
    await data.sessions.purgeExpired(DAY + 10, DAY);
    expect(await data.sessions.find(old, DAY + 10, 10 * DAY)).toBeUndefined();
    expect(await data.sessions.find(fresh, DAY + 10, DAY)).toBeDefined();
    await data.sessions.delete(fresh);
    expect(await data.sessions.find(fresh, DAY + 10, DAY)).toBeUndefined();
  });

  it('the failed-login journal: counts in a window, withdraws one, says when a blocked key may try again', async () => {
    for (const at of [1000, 2000, 3000]) await data.sessions.recordFailure('ann', at);
    const id = await data.sessions.recordFailure('ann', 4000);
    await data.sessions.recordFailure('bob', 4000);
    expect(await data.sessions.failures('ann', 0)).toBe(4);
    await data.sessions.withdrawFailure(id);
    expect(await data.sessions.failures('ann', 0)).toBe(3);
    expect(await data.sessions.failures('ann', 2000)).toBe(2);
    // Limit 2 in a 10 s window: the window holds 3, so the oldest blocking one (1000) must age out.
    expect(await data.sessions.retryAt('ann', 0, 2, 10_000)).toBe(12_000);
    await data.sessions.purgeFailures(2500);
    expect(await data.sessions.failures('ann', 0)).toBe(1);
    await data.sessions.clearFailures('ann');
    expect([await data.sessions.failures('ann', 0), await data.sessions.failures('bob', 0)]).toEqual([0, 1]);
  });

  it('the change counters move with every change of accounts and sessions, from any connection', async () => {
    const v0 = await data.authVersions.read();
    const ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'h', now: 0 });
    const v1 = await data.authVersions.read();
    expect(v1.accounts).toBeGreaterThan(v0.accounts);
    expect(v1.sessions).toBe(v0.sessions);
    await data.sessions.create(ann, 'user', 0);
    expect((await data.authVersions.read()).sessions).toBeGreaterThan(v1.sessions);
  });
});
