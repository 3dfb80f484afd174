/**
 * The documented-shape suite's harness (issue 23): a real server, a user, and checks that an answer
 * carries every member the public documentation shows for it. The request bodies of the suite are
 * our own fixtures, written from the documentation's descriptions of each call. Two ways in:
 * `documentedServer` (a user; `ok` checks success) and `startHarness` (a user with a tracker;
 * `documented` checks success and the answer's members).
 */
import { expect } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

export interface Documented {
  s: TestServer;
  userId: number;
  hash: string;
  /** POST the call with the user's hash; answers the parsed body. */
  call(path: string, params?: Record<string, unknown>): Promise<any>;
  /** POST the call and expect success; answers the body. */
  ok(path: string, params?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export async function documentedServer(login = 'documented@example.com', timeZone = 'UTC', env: Record<string, string> = {}): Promise<Documented> {
  const s = await startTestServer(env);
  try {
    const { id: userId, hash } = await s.user(login, { timeZone });
    const call = async (path: string, params: Record<string, unknown> = {}) => (await s.call(path, { hash, ...params })).body;
    const ok = async (path: string, params: Record<string, unknown> = {}) => {
      const body = await call(path, params);
      expect(body, `${path} ${JSON.stringify(body).slice(0, 500)}`).toMatchObject({ success: true });
      return body;
    };
    return { s, userId, hash, call, ok, close: () => s.close() };
  } catch (e) {
    await s.close();
    throw e;
  }
}

/** `value` has each of `members` (a documented member may be null, never absent). */
export function expectMembers(value: unknown, members: readonly string[], where: string): void {
  expect(value, where).toBeTypeOf('object');
  const missing = members.filter((m) => !Object.prototype.hasOwnProperty.call(value, m));
  expect(missing, `${where}: documented members missing`).toEqual([]);
}

/** The same check as `expectMembers`, argument order of the tasks/reports/... files. */
export const hasMembers = (value: unknown, members: string[], what: string): void => expectMembers(value, members, what);

export interface Harness {
  s: TestServer;
  user: { id: number; hash: string };
  tracker: number;
  /** POST the documented request; the answer's body, checked for success and `members`. */
  documented(path: string, params: Record<string, unknown>, members?: string[]): Promise<any>;
  /** The same request as a GET with a query string (documented "HTTP GET" examples). */
  documentedGet(path: string, query: Record<string, string>, members?: string[]): Promise<any>;
  close(): Promise<void>;
}

export async function startHarness(opts: { timeZone?: string } = {}): Promise<Harness> {
  const d = await documentedServer('documented@example.com', opts.timeZone ?? 'Europe/Berlin');
  const { s } = d;
  let tracker: number;
  try {
    tracker = s.addTracker(d.userId, '359633100000001', { label: 'Van documented' });
  } catch (e) {
    await d.close();
    throw e;
  }
  const check = (path: string, body: any, members: string[]) => {
    expect(body?.success, `${path}: ${JSON.stringify(body).slice(0, 400)}`).toBe(true);
    expectMembers(body, members, path);
    return body;
  };
  return {
    s,
    user: { id: d.userId, hash: d.hash },
    tracker,
    async documented(path, params, members = []) {
      return check(path, await d.call(path, params), members);
    },
    async documentedGet(path, query, members = []) {
      const res = await fetch(`${s.url}/v2/${path}?${new URLSearchParams({ hash: d.hash, ...query })}`);
      return check(path, await res.json(), members);
    },
    close: d.close,
  };
}
