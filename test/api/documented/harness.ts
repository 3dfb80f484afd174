/**
 * The documented-shape suite's harness (issue 23): a real server, a user, and checks that an answer
 * carries every member the public documentation shows for it. The request bodies of the suite are
 * our own fixtures, written from the documentation's descriptions of each call.
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
