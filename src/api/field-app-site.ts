/**
 * The field app (issue 27, docs/field-app.md "The app") served at `/app/`: the Vite build of web/app
 * as static files, its single-page fallback (a deep link such as /app/task/7 gets index.html) and
 * the service worker with `no-cache` so a new version is picked up at the next start of the app.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { ConsoleSite } from './console.ts';

export async function mountFieldApp(app: FastifyInstance, dir: string): Promise<ConsoleSite> {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    app.get('/app/', (_request, reply) =>
      reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send('<!doctype html><meta charset="utf-8"><title>Field app not built</title><p>The field app is not built: run <code>npm run build:app</code> (<code>npm install</code> and <code>npm start</code> do it by themselves).</p>'),
    );
    return { fallback: () => false };
  }
  const index = readFileSync(indexFile);
  const sendIndex = (reply: import('fastify').FastifyReply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(index);
  await app.register(async (site) => {
    await site.register(fastifyStatic, {
      root: dir,
      prefix: '/app/',
      index: false,
      preCompressed: true,
      setHeaders(reply, path) {
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
        // The worker controls the whole app even though it is served from /app/.
        if (path.endsWith('/sw.js')) reply.header('service-worker-allowed', '/app/');
      },
    });
    site.get('/app/', (_request, reply) => sendIndex(reply));
  });
  return {
    fallback(request, reply) {
      const path = String(request.url).split('?')[0];
      if (request.method !== 'GET' || !path.startsWith('/app/') || /\.[a-z0-9]+$/i.test(path)) return false;
      if (!String(request.headers.accept ?? '').includes('text/html')) return false;
      sendIndex(reply);
      return true;
    },
  };
}
