/**
 * The admin command's user settings (issue 12): `user create --measurement-system --locale` and
 * `user update --time-zone --locale --measurement-system`, run as a real process against the data
 * directory of a running server; user/get_info shows the result over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsm } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
}, 120_000);
afterAll(() => s?.close());

const info = async (login: string) => {
  const auth = await s.call('user/auth', { login, password: 'pw' });
  return (await s.call('user/get_info', { hash: auth.body.hash })).body.user_info;
};

describe('npm run fsm -- user create|update settings', () => {
  it('user create --locale --measurement-system', async () => {
    const r = fsm(s.dataDir, 'user', 'create', '--login', 'us@example.com', '--password', 'pw', '--locale', 'en-US', '--measurement-system', 'us', '--json');
    expect(r.code).toBe(0);
    expect(await info('us@example.com')).toMatchObject({ locale: 'en-US', measurement_system: 'us', time_zone: 'UTC' });
    const bad = fsm(s.dataDir, 'user', 'create', '--login', 'bad@example.com', '--password', 'pw', '--measurement-system', 'nautical');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('measurement-system: expected one of metric, imperial, us');
    expect(s.store.users.findByLogin('bad@example.com')).toBeUndefined();
  });

  it('user update changes only what is given; wrong values are refused and change nothing', async () => {
    const r = fsm(s.dataDir, 'user', 'update', '--login', 'us@example.com', '--time-zone', 'America/Chicago', '--measurement-system', 'imperial', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ id: expect.any(Number), time_zone: 'America/Chicago', locale: 'en-US', measurement_system: 'imperial' });
    expect(await info('us@example.com')).toMatchObject({ locale: 'en-US', measurement_system: 'imperial', time_zone: 'America/Chicago' });
    for (const [args, message] of [
      [['--time-zone', 'Mars/Olympus'], '--time-zone: unknown time zone Mars/Olympus'],
      [['--locale', 'english!'], '--locale: expected a locale'],
      [[], 'name at least one setting'],
    ] as const) {
      const bad = fsm(s.dataDir, 'user', 'update', '--login', 'us@example.com', ...args);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(message);
    }
    expect(fsm(s.dataDir, 'user', 'update', '--login', 'nobody@example.com', '--locale', 'en').stderr).toContain('no user with login nobody@example.com');
    expect(await info('us@example.com')).toMatchObject({ locale: 'en-US', measurement_system: 'imperial', time_zone: 'America/Chicago' });
  });
});
