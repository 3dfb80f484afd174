/** User calls over real HTTP (issue 2; spec: User, Authentication, Errors). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ FSM_LOGIN_MAX_FAILURES: '3', FSM_MAX_SESSIONS: '2' });
});
afterAll(() => s.close());

const deps = () => {
  const config = loadConfig({ FSM_DATA_DIR: s.dataDir });
  return { store: s.store, config, mailer: createMailer(config.mail), now: Date.now };
};

/** The activation link mailed last to `login`, read from the outbox. */
function lastActivationHash(login: string): string {
  const dir = join(s.dataDir, 'outbox');
  const mails = readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8')).filter((m) => m.includes(`To: ${login}`));
  // quoted-printable: soft line breaks and =XX escapes
  const text = mails.at(-1)!.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  const m = /user\/activate\?hash=([0-9a-f]+)/.exec(text);
  return m![1];
}

describe('user/auth', () => {
  it('answers a session hash that works', async () => {
    await createUser(deps(), { login: 'ann@example.com', password: 'pa ss!1' });
    const r = await s.call('user/auth', { login: 'ann@example.com', password: 'pa ss!1' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['success', 'type', 'hash']);
    expect(r.body.hash).toMatch(/^[0-9a-f]{32}$/);
    expect((await s.call('user/get_info', { hash: r.body.hash })).body.success).toBe(true);
  });
  it('login is case-insensitive', async () => {
    expect((await s.call('user/auth', { login: 'ANN@example.com', password: 'pa ss!1' })).body.success).toBe(true);
  });
  it('102 for a wrong password or unknown login', async () => {
    for (const p of [{ login: 'ann@example.com', password: 'nope' }, { login: 'nobody@example.com', password: 'x' }]) {
      const r = await s.call('user/auth', p);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ success: false, status: { code: 102, description: 'Wrong login or password' } });
    }
  });
  it('102 for a dealer_id that is not the user\'s dealer', async () => {
    await createUser(deps(), { login: 'dealer@example.com', password: 'pw' });
    expect((await s.call('user/auth', { login: 'dealer@example.com', password: 'pw', dealer_id: 99 })).body.status.code).toBe(102);
    expect((await s.call('user/auth', { login: 'dealer@example.com', password: 'pw', dealer_id: 1 })).body.success).toBe(true);
  });
  it('7 for a password over 40 characters or with control characters, naming it', async () => {
    for (const password of ['x'.repeat(41), 'a\u0001b', '']) {
      const r = await s.call('user/auth', { login: 'ann@example.com', password });
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors.map((e: any) => e.parameter)).toEqual(['password']);
    }
  });
  it('103 for a user not activated', async () => {
    await createUser(deps(), { login: 'new@example.com', password: 'pw', unactivated: true });
    const r = await s.call('user/auth', { login: 'new@example.com', password: 'pw' });
    expect(r.body.status.code).toBe(103);
  });
  it('11 for a user whose dealer blocked it', async () => {
    const { id } = await createUser(deps(), { login: 'blocked@example.com', password: 'pw' });
    s.store.users.setDealerBlocked(id, true);
    const r = await s.call('user/auth', { login: 'blocked@example.com', password: 'pw' });
    expect(r.status).toBe(403);
    expect(r.body.status.code).toBe(11);
  });
  it('104 when the sessions limit is reached; logout frees one', async () => {
    await createUser(deps(), { login: 'busy@example.com', password: 'pw' });
    const a = await s.call('user/auth', { login: 'busy@example.com', password: 'pw' });
    await s.call('user/auth', { login: 'busy@example.com', password: 'pw' });
    const third = await s.call('user/auth', { login: 'busy@example.com', password: 'pw' });
    expect(third.body.status.code).toBe(104);
    expect(third.status).toBe(429);
    expect((await s.call('user/logout', { hash: a.body.hash })).body).toEqual({ success: true });
    expect((await s.call('user/auth', { login: 'busy@example.com', password: 'pw' })).body.success).toBe(true);
  });
  it('105 after too many failures, with a clear retry time, even with the right password', async () => {
    await createUser(deps(), { login: 'guess@example.com', password: 'right' });
    for (let i = 0; i < 3; i++) expect((await s.call('user/auth', { login: 'guess@example.com', password: 'wrong' })).body.status.code).toBe(102);
    const r = await s.call('user/auth', { login: 'guess@example.com', password: 'right' });
    expect(r.status).toBe(429);
    expect(r.body.status.code).toBe(105);
    expect(r.body.status.description).toMatch(/^Login attempts limit exceeded, try again in 15 minute\(s\), at \d{4}-\d\d-\d\dT/);
    expect(r.body.retry_after).toMatch(/^PT1[45]M/);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(800);
    // other logins are not affected
    await createUser(deps(), { login: 'bystander@example.com', password: 'pw' });
    expect((await s.call('user/auth', { login: 'bystander@example.com', password: 'pw' })).body.success).toBe(true);
  });
  it('the limit holds under concurrency: of 40 parallel guesses only 3 are checked, the rest answer 105', async () => {
    await createUser(deps(), { login: 'parallel@example.com', password: 'right' });
    const answers = await Promise.all(Array.from({ length: 40 }, () => s.call('user/auth', { login: 'parallel@example.com', password: 'wrong' })));
    const codes = answers.map((r) => r.body.status.code);
    expect(codes.filter((c) => c === 102)).toHaveLength(3);
    expect(codes.filter((c) => c === 105)).toHaveLength(37);
    // the right password past the limit is refused too
    expect((await s.call('user/auth', { login: 'parallel@example.com', password: 'right' })).body.status.code).toBe(105);
  });
});

describe('user/logout', () => {
  it('destroys the session: the hash then gives 4', async () => {
    const { hash } = await s.user('leave@example.com');
    expect((await s.call('user/logout', { hash })).body).toEqual({ success: true });
    expect((await s.call('user/get_info', { hash })).body.status.code).toBe(4);
  });
});

describe('user/get_info', () => {
  it('the whole User info shape of a master', async () => {
    const { id, hash } = await s.user('info@example.com', { timeZone: 'Europe/Berlin' });
    const r = await s.call('user/get_info', { hash });
    expect(Object.keys(r.body).sort()).toEqual(['features', 'paas_id', 'paas_settings', 'premium_gis', 'success', 'tariff_restrictions', 'user_info']);
    expect(r.body.tariff_restrictions).toEqual({ allowed_maps: ['osm'] });
    expect(r.body.features).toEqual(['reports', 'tasks', 'chat', 'statuses']);
    const u = r.body.user_info;
    expect(u).toMatchObject({ id, login: 'info@example.com', demo: false, verified: true, legal_type: 'individual', time_zone: 'Europe/Berlin', measurement_system: 'metric', default_geocoder: 'geocoder_type_1', route_provider: 'route_provider_1', balance: 0, bonus: 0, locale: 'en' });
    expect(u.creation_date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    for (const k of ['title', 'phone', 'tin', 'post_country', 'post_region', 'post_index', 'post_city', 'post_street_address', 'registered_country', 'registered_region', 'registered_index', 'registered_city', 'registered_street_address', 'first_name', 'middle_name', 'last_name']) expect(u).toHaveProperty(k);
  });
  it('a sub-user sees its master and privileges; balance only with payment_create', async () => {
    const m = await s.user('boss@example.com');
    s.sql.prepare('UPDATE users SET balance = 12.345, bonus = 3 WHERE id = ?').run(m.id);
    const plain = await s.user('clerk@example.com', { parent: 'boss@example.com', rights: ['task_update'] });
    const payer = await s.user('payer@example.com', { parent: 'boss@example.com', rights: ['payment_create'] });
    const a = (await s.call('user/get_info', { hash: plain.hash })).body;
    expect(a.master).toEqual({ id: m.id, demo: false, legal_type: 'individual', first_name: '', middle_name: '', last_name: '', legal_name: null, title: '' });
    expect(a.privileges).toEqual({ rights: ['task_update'] });
    const b = (await s.call('user/get_info', { hash: payer.hash })).body;
    expect(b.master.balance).toBe(12.35);
    expect(b.master.bonus).toBe(3);
  });
});

describe('user/get_tariff_restrictions', () => {
  it('answers allowed_maps of the tariff', async () => {
    const { hash } = await s.user('maps@example.com');
    expect((await s.call('user/get_tariff_restrictions', { hash })).body).toEqual({ success: true, value: { allowed_maps: ['osm'] } });
  });
});

describe('activation', () => {
  it('resend_activation mails a link; activate takes only that hash; then auth works', async () => {
    await createUser(deps(), { login: 'fresh@example.com', password: 'pw', unactivated: true });
    const mailed = lastActivationHash('fresh@example.com');
    // too soon for another link: 264 with timeout and remainder
    const soon = await s.call('user/resend_activation', { login: 'fresh@example.com' });
    expect(soon.body.status.code).toBe(264);
    expect(soon.body.timeout).toBe('PT5M');
    expect(soon.body.remainder).toMatch(/^PT(4M|5M)(\d+S)?$/);
    // a normal session hash cannot activate: 4
    const other = await s.user('someone@example.com');
    expect((await s.call('user/activate', { hash: other.hash })).body.status.code).toBe(4);
    expect((await s.call('user/activate', { hash: 'bogus' })).body.status.code).toBe(4);
    // the link's hash activates (GET, as a mail client opens it)
    const res = await fetch(`${s.url}/v2/fsm/user/activate?hash=${mailed}`);
    expect(await res.json()).toEqual({ success: true });
    // once only
    expect((await s.call('user/activate', { hash: mailed })).body.status.code).toBe(4);
    expect((await s.call('user/auth', { login: 'fresh@example.com', password: 'pw' })).body.success).toBe(true);
    // 265 once activated
    expect((await s.call('user/resend_activation', { login: 'fresh@example.com' })).body.status.code).toBe(265);
  });
  it('resend_activation after the interval mails a new link', async () => {
    const { id } = await createUser(deps(), { login: 'later@example.com', password: 'pw', unactivated: true });
    const first = lastActivationHash('later@example.com');
    s.store.users.setActivationSent(id, Date.now() - 6 * 60_000);
    expect((await s.call('user/resend_activation', { login: 'later@example.com' })).body).toEqual({ success: true });
    expect(lastActivationHash('later@example.com')).not.toBe(first);
  });
  it('201 for an unknown login', async () => {
    expect((await s.call('user/resend_activation', { login: 'ghost@example.com' })).body.status.code).toBe(201);
  });
});

describe('209 when sending mail fails', () => {
  let t: TestServer;
  beforeAll(async () => {
    // An SMTP server that refuses connections: port 1 on loopback.
    t = await startTestServer({ FSM_SMTP_URL: 'smtp://127.0.0.1:1' });
  });
  afterAll(() => t.close());
  it('answers 209 and leaves the user able to retry at once', async () => {
    const config = loadConfig({ FSM_DATA_DIR: t.dataDir, FSM_SMTP_URL: 'smtp://127.0.0.1:1' });
    await createUser({ store: t.store, config, mailer: createMailer({ ...config.mail, smtpUrl: null }), now: Date.now }, { login: 'smtp@example.com', password: 'pw', unactivated: true });
    t.store.users.setActivationSent(t.store.users.findByLogin('smtp@example.com')!.id, Date.now() - 3600_000);
    const r = await t.call('user/resend_activation', { login: 'smtp@example.com' });
    expect(r.status).toBe(502);
    expect(r.body.status.code).toBe(209);
    expect((await t.call('user/resend_activation', { login: 'smtp@example.com' })).body.status.code).toBe(209);
  });
});

describe('limits on failures per address, and session lifetime', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ FSM_ADDRESS_MAX_FAILURES: '2' });
  });
  afterAll(() => t.close());
  it('105 for an address that failed too often, whatever the login', async () => {
    await t.user('addr@example.com');
    // successful logins are no failures, though each is counted until its password is checked
    for (let i = 0; i < 3; i++) expect((await t.call('user/auth', { login: 'addr@example.com', password: 'secret-1' })).body.success).toBe(true);
    expect((await t.call('user/auth', { login: 'a@example.com', password: 'x' })).body.status.code).toBe(102);
    expect((await t.call('user/auth', { login: 'b@example.com', password: 'x' })).body.status.code).toBe(102);
    expect((await t.call('user/auth', { login: 'addr@example.com', password: 'secret-1' })).body.status.code).toBe(105);
  });
  it('a session unused for 30 days has ended: 4', async () => {
    const { hash } = await s.user('idle@example.com');
    s.sql.prepare('UPDATE sessions SET last_used = ? WHERE hash = ?').run(Date.now() - 31 * 86_400_000, hash);
    expect((await s.call('user/get_info', { hash })).body.status.code).toBe(4);
  });
});
