/**
 * The console's one client of the public API (docs/api.md): every call is a POST of JSON to
 * /v2/fsm/<path> with the session hash, answered in the {success, status} envelope. A failed call
 * throws ApiError with the documented code (docs/errors.md); an ended session (code 4) also tells
 * the application, which then shows the sign-in screen.
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly errors: { parameter: string; error: string }[] = [],
  ) {
    super(`${description} (code ${code})`);
  }
}

/** Thrown when the server cannot be reached at all (no answer, or not the API's envelope). */
export class NetworkError extends Error {}

export interface Session {
  hash: string;
  login: string;
}

const BASE = '/v2/fsm/';
const SESSION_KEY = 'fsm.console.session';

async function post<T>(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(BASE + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new NetworkError(String(e));
  }
  let data: { success?: boolean; status?: { code: number; description: string }; errors?: { parameter: string; error: string }[] };
  try {
    data = await res.json();
  } catch {
    throw new NetworkError(`HTTP ${res.status} without an API answer`);
  }
  if (data.success) return data as T;
  throw new ApiError(data.status?.code ?? 1, data.status?.description ?? `HTTP ${res.status}`, data.errors);
}

export class Api {
  constructor(
    readonly session: Session,
    private readonly onSessionEnded: () => void = () => {},
  ) {}

  /** One API call; `params` are the call's parameters (the hash is added). */
  async call<T = Record<string, unknown>>(path: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
    try {
      return await post<T>(path, { ...params, hash: this.session.hash }, signal);
    } catch (e) {
      if (e instanceof ApiError && e.code === 4) this.onSessionEnded();
      throw e;
    }
  }

  static async signIn(login: string, password: string): Promise<Session> {
    const r = await post<{ hash: string }>('user/auth', { login, password });
    return { hash: r.hash, login };
  }

  async signOut(): Promise<void> {
    try {
      await post('user/logout', { hash: this.session.hash });
    } catch {
      /* the session may already be gone: signing out locally is what counts */
    }
  }
}

/** The session survives a reload of the page (this browser's storage only). */
export const sessionStore = {
  load(): Session | null {
    try {
      const s = JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null');
      return s && typeof s.hash === 'string' && typeof s.login === 'string' ? s : null;
    } catch {
      return null;
    }
  },
  save(s: Session | null) {
    if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
    else localStorage.removeItem(SESSION_KEY);
  },
};
