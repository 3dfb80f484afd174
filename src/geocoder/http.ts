/** JSON over HTTP for the remote providers: a timeout, a clear error for every kind of failure. */

export class ProviderError extends Error {}

const HEADERS = { accept: 'application/json', 'user-agent': 'fsm-platform-geocoder/1 (self-hosted)' };

/** GET base + path with the parameters (empty ones left out); the parsed JSON body. */
export async function getJson(base: string, path: string, params: Record<string, string | number | undefined>, timeoutMs: number): Promise<unknown> {
  const url = new URL(base + path);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  let res: Response;
  try {
    res = await fetch(url, { headers: HEADERS, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new ProviderError(`${url.origin}: ${(e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw new ProviderError(`${url.origin}${url.pathname}: HTTP ${res.status}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`${url.origin}${url.pathname}: the answer is not JSON`);
  }
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
