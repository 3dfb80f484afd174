/**
 * Secrets never reach the log (issue 10, item 12; docs/api.md). A parameter is secret by its
 * *decoded* name (`hash`, `h%61sh`, `HASH`, `hash[]`, `password`, `apn_password`, ...), wherever a
 * request is logged: the URL of every request line, the path of unknown calls, and error lines
 * (whose messages may quote a body or a parameter).
 */
import type { FastifyRequest } from 'fastify';

const CENSOR = '[redacted]';

/** `hash`, and any name containing `password`, compared decoded, case-insensitively, without `[...]`. */
export function isSecretName(raw: string): boolean {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    /* malformed escapes: judge the raw text */
  }
  name = name.replace(/\[[^\]]*\]/g, '').trim().toLowerCase();
  return name === 'hash' || name.includes('password') || name === 'authorization';
}

/**
 * A path keeps only segments that look like call names (`get_info`, `v2`, `api-v2`): a letter, then
 * letters, `_.-` and at most two digits. Anything else (a hash pasted into the path) is censored.
 */
const isPlainSegment = (s: string) => /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(s) && (s.match(/\d/g)?.length ?? 0) <= 2;

/** The URL as logged: secret query values and unplain path segments censored. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? undefined : url.slice(q + 1);
  const safePath = path
    .split('/')
    .map((s) => (s === '' || isPlainSegment(s) ? s : CENSOR))
    .join('/');
  if (query === undefined) return safePath;
  const safeQuery = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return isSecretName(name) ? `${name}=${CENSOR}` : pair;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

/** Values of the request's secret parameters (query, body, nested), its Authorization header and cookies. */
export function secretsOf(request: FastifyRequest): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (!v || typeof v !== 'object' || depth > 8 || Buffer.isBuffer(v)) return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (isSecretName(k)) collect(x);
      else walk(x, depth + 1);
    }
  };
  const collect = (x: unknown) => {
    if (typeof x === 'string' && x.length >= 4) out.push(x);
    else if (Array.isArray(x)) x.forEach(collect);
    else if (x && typeof x === 'object' && 'value' in x) collect((x as { value: unknown }).value); // multipart field
  };
  walk(request.query, 0);
  walk(request.body, 0);
  const auth = request.headers.authorization;
  if (auth) out.push(auth, ...auth.split(/\s+/).filter((t) => t.length >= 4));
  if (request.headers.cookie) out.push(request.headers.cookie);
  // a hash pasted into the path of an unknown call
  for (const s of String(request.url).split(/[/?&;=]/)) if (s.length >= 16 && !isPlainSegment(s)) out.push(s);
  return out;
}

/** An error made safe to log: its message and stack with the given secrets censored. */
export function redactError(e: unknown, secrets: string[]): unknown {
  if (!secrets.length) return e;
  const scrub = (s: string) => secrets.reduce((acc, secret) => acc.split(secret).join(CENSOR), s);
  if (!(e instanceof Error)) return typeof e === 'string' ? scrub(e) : e;
  const copy = new Error(scrub(e.message));
  copy.name = e.name;
  copy.stack = e.stack ? scrub(e.stack) : undefined;
  for (const k of ['code', 'statusCode'] as const) if (k in e) (copy as unknown as Record<string, unknown>)[k] = (e as unknown as Record<string, unknown>)[k];
  return copy;
}
