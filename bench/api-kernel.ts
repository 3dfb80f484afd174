/**
 * bench/api-kernel (issue 2): req/s and p99 of an authenticated tracker/list against a bare
 * Fastify route answering the same JSON, measured in the same run; prints their ratio.
 * Target: ratio at least 0.7. Each server runs in its own process; the load comes from this one.
 *   npm run bench:api-kernel [-- --seconds 5 --connections 32]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load, type LoadResult } from './load.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const root = fileURLToPath(new URL('..', import.meta.url));

async function measure(mode: 'bare' | 'api'): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/api-kernel-server.ts', mode], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<{ port: number; hash?: string }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  try {
    return await load(
      `http://127.0.0.1:${info.port}`,
      { path: '/v2/fsm/tracker/list', method: 'POST', headers: { 'content-type': 'application/json', ...(info.hash ? { authorization: `NVX ${info.hash}` } : {}) }, body: '{}' },
      { seconds, connections, warmup: 2, check: (status, body) => status === 200 && body.startsWith('{"success":true') },
    );
  } finally {
    child.kill();
  }
}

const fmt = (r: LoadResult) => `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  (${r.requests} requests, ${r.errors} errors)`;
const bare = await measure('bare');
const api = await measure('api');
console.log(`bare Fastify route       ${fmt(bare)}`);
console.log(`tracker/list (auth+SQL)  ${fmt(api)}`);
console.log(`ratio req/s ${(api.rps / bare.rps).toFixed(2)} (target >= 0.70), p99 ${(api.p99 / bare.p99).toFixed(2)}x of bare`);
if (bare.errors || api.errors) process.exitCode = 1;
