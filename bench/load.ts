/** A small closed-loop HTTP load generator over undici (keep-alive, N concurrent callers). */
import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function load(origin: string, req: { path: string; method?: string; headers?: Record<string, string>; body?: string }, opts: { connections?: number; seconds?: number; warmup?: number; check?: (status: number, body: string) => boolean } = {}): Promise<LoadResult> {
  const connections = opts.connections ?? 32;
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const run = async (until: number, lat: number[] | null) => {
    let n = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const res = await pool.request({ path: req.path, method: (req.method ?? 'GET') as 'GET', headers: req.headers, body: req.body });
          const text = await res.body.text();
          if (opts.check && !opts.check(res.statusCode, text)) errors++;
          lat?.push(performance.now() - t0);
          n++;
        }
      }),
    );
    return { n, errors };
  };
  await run(performance.now() + (opts.warmup ?? 1) * 1000, null);
  const lat: number[] = [];
  const t0 = performance.now();
  const { n, errors } = await run(t0 + (opts.seconds ?? 5) * 1000, lat);
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { requests: n, errors, seconds, rps: n / seconds, p50: q(0.5), p99: q(0.99) };
}
