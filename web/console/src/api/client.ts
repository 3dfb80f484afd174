/**
 * The console's one client of the public API (docs/api.md): every call is a POST of JSON to
 * /v2/fsm/<path> with the session hash, answered in the {success, status} envelope. A failed call
 * throws ApiError with the documented code (docs/errors.md); an ended session (code 4) also tells
 * the application, which then shows the sign-in screen. The envelope and the error classes are
 * shared with the field app (web/shared/api.ts).
 */
import { API_BASE, ApiError, NetworkError, answerOf, postCall } from '../../../shared/api.ts';

export { ApiError, NetworkError };

export interface Session {
  hash: string;
  login: string;
}

const SESSION_KEY = 'fsm.console.session';

/** JSON for calls; multipart form data for uploads (the file as part `file`, the browser sets the type). */
const post = <T>(path: string, body: Record<string, unknown> | FormData, signal?: AbortSignal): Promise<T> => postCall<T>(path, body, { signal });

/** A file answer, or the JSON envelope of a refusal (thrown as `post` throws it). */
async function fetchFile(path: string, body: Record<string, unknown>): Promise<{ blob: Blob; filename: string }> {
  let res: Response;
  try {
    res = await fetch(API_BASE + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch (e) {
    throw new NetworkError(String(e));
  }
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) {
    // A refusal in the API's envelope (thrown as ApiError); a JSON success is no file.
    await answerOf(res);
    throw new NetworkError('the answer is no file');
  }
  if (!res.ok) throw new NetworkError(`HTTP ${res.status} without an API answer`);
  return { blob: await res.blob(), filename: fileName(res.headers.get('content-disposition') ?? '') };
}

/** The name in `Content-Disposition`: RFC 6266's `filename*=UTF-8''…` first, else `filename="…"`. */
export function fileName(disposition: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      /* a malformed encoding: the plain name below */
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? 'download';
}

export class Api {
  constructor(
    readonly session: Session,
    private readonly onSessionEnded: () => void = () => {},
  ) {}

  /** One API call; `params` are the call's parameters (the hash is added). */
  async call<T = Record<string, unknown>>(path: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
    return this.guard(post<T>(path, { ...params, hash: this.session.hash }, signal));
  }

  /** A file upload call (zone/upload, place/upload): `fields` as form fields, the file as part `file`. */
  async upload<T = Record<string, unknown>>(path: string, fields: Record<string, string>, file: File): Promise<T> {
    const form = new FormData();
    form.set('hash', this.session.hash);
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('file', file, file.name);
    return this.guard(post<T>(path, form));
  }

  /** A call that answers a file (report/tracker/download): its bytes and the server's file name; a refusal is thrown as ApiError. */
  async download(path: string, params: Record<string, unknown>): Promise<{ blob: Blob; filename: string }> {
    return this.guard(fetchFile(path, { ...params, hash: this.session.hash }));
  }

  /** A stored file's `download_url` with this session, for an <img> or a link (docs/files.md: links carry the session). */
  fileUrl(downloadUrl: string): string {
    return `${downloadUrl}${downloadUrl.includes('?') ? '&' : '?'}hash=${encodeURIComponent(this.session.hash)}`;
  }

  private async guard<T>(answer: Promise<T>): Promise<T> {
    try {
      return await answer;
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
