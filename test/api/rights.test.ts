/**
 * Rights, generated from the one rights table (issue 2): each guarded call refuses a sub-user
 * lacking its right with 13 and lets one holding it through; admin calls refuse every sub-user.
 * New calls join automatically as they are added to the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCalls } from '../../src/api/server.ts';
import { GRANTABLE_RIGHTS, RIGHTS, rightFor } from '../../src/api/rights.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let master: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  master = await s.user('master@example.com');
});
afterAll(() => s.close());

describe('the rights table and the calls agree', () => {
  it('every call declares exactly the right the table names for it', () => {
    for (const c of allCalls) expect(c.right, c.path).toBe(rightFor(c.path));
  });
  it('no call is named under two rights', () => {
    const all = Object.values(RIGHTS).flat();
    expect(new Set(all).size).toBe(all.length);
  });
});

const guarded = allCalls.filter((c) => c.right);
describe.each(guarded.map((c) => [c.path, c.right!] as const))('%s needs %s', (path, right) => {
  it('13 for a sub-user lacking it, and nothing runs', async () => {
    const login = `lack-${path.replace(/\//g, '-')}@example.com`;
    const sub = await s.user(login, { parent: 'master@example.com', rights: GRANTABLE_RIGHTS.filter((r) => r !== right) });
    const r = await s.call(path, { hash: sub.hash });
    expect(r.status).toBe(403);
    expect(r.body.success).toBe(false);
    expect(r.body.status.code).toBe(13);
  });
  if (right !== 'admin') {
    it('passes the rights check for a sub-user holding it', async () => {
      const login = `hold-${path.replace(/\//g, '-')}@example.com`;
      const sub = await s.user(login, { parent: 'master@example.com', rights: [right] });
      const r = await s.call(path, { hash: sub.hash });
      expect(r.body.status?.code).not.toBe(13);
    });
  }
  it('passes for the master', async () => {
    const r = await s.call(path, { hash: master.hash });
    expect(r.body.status?.code).not.toBe(13);
  });
});
