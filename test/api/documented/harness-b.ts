/**
 * The documented-shape suite's harness (issue 23; helper b's areas: tasks, routes, task forms,
 * reports, history, user and delivery, check-ins, statuses, chat, tracks, retranslators, map layers,
 * files). A real server, a user with a tracker, and `documented(path, params, members)`: sends a
 * request written from the public documentation of the API the spec describes (our own fixtures)
 * and checks that the answer succeeds and has every member the documentation's answer has.
 */
import { expect } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

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

/** Members of a documented object that the answer's object must have (each listed one present). */
export function hasMembers(value: unknown, members: string[], what: string): void {
  expect(value, what).toBeTypeOf('object');
  const missing = members.filter((m) => !Object.hasOwn(value as object, m));
  expect(missing, `${what} lacks documented members`).toEqual([]);
}

export async function startHarness(opts: { timeZone?: string } = {}): Promise<Harness> {
  const s = await startTestServer();
  try {
    const user = await s.user('documented@example.com', { timeZone: opts.timeZone ?? 'Europe/Berlin' });
    const tracker = s.addTracker(user.id, '359633100000001', { label: 'Van documented' });
    const check = (path: string, body: any, members: string[]) => {
      expect(body?.success, `${path}: ${JSON.stringify(body).slice(0, 400)}`).toBe(true);
      hasMembers(body, members, path);
      return body;
    };
    return {
      s,
      user,
      tracker,
      async documented(path, params, members = []) {
        return check(path, (await s.call(path, { hash: user.hash, ...params })).body, members);
      },
      async documentedGet(path, query, members = []) {
        const res = await fetch(`${s.url}/v2/${path}?${new URLSearchParams({ hash: user.hash, ...query })}`);
        return check(path, await res.json(), members);
      },
      close: () => s.close(),
    };
  } catch (e) {
    await s.close();
    throw e;
  }
}
