/**
 * The operator console (issue 26, docs/console.md) served at `/` by the API's own server: the Vite
 * build of web/console as static files (hashed assets cached for good, pre-compressed variants
 * where the build made them), the single-page fallback (a browser's deep link such as /history
 * gets index.html), the console's settings at /console/config.json and an optional self-hosted
 * PMTiles basemap. The console itself talks only to the public API.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config.ts';

/** Paths that belong to the API and its documentation, never to the console's fallback. */
const NOT_CONSOLE = /^\/(v2|api-v2|docs|metrics|health|ready|app|console)(\/|$)/;

/** Shown at `/` when the build is missing, instead of an API error or a crash. */
function notBuiltPage(dir: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto;line-height:1.5">
<h1>The operator console is not built</h1>
<p>The server runs and its API answers under <code>/v2/fsm/</code> (documentation at <a href="/docs">/docs</a>),
but the console's files were not found in <code>${dir.replace(/[<>&]/g, '')}</code>.</p>
<p>Build it with <code>npm run build:console</code> (<code>npm install</code> and <code>npm start</code> do it by themselves), then reload this page.</p>
</body></html>`;
}

export interface ConsoleSite {
  /** Answers a GET the API does not know with the console's page, when it is one of the console's own paths. */
  fallback(request: FastifyRequest, reply: FastifyReply): boolean;
}

export async function mountConsole(app: FastifyInstance, config: Readonly<Config>): Promise<ConsoleSite> {
  const { dir, map } = config.console;
  const indexFile = join(dir, 'index.html');
  const built = existsSync(indexFile);
  // The settings the console needs before it draws a map; no secret is among them.
  app.get('/console/config.json', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return {
      map: {
        style_url: map.styleUrl,
        tiles_url: map.tilesUrl,
        pmtiles_url: map.pmtilesFile ? '/console/basemap.pmtiles' : null,
        attribution: map.attribution,
        max_zoom: map.maxZoom,
      },
    };
  });
  if (map.pmtilesFile) {
    // Range requests are how a PMTiles reader fetches its tiles.
    await app.register(async (files) => {
      await files.register(fastifyStatic, { root: dirname(map.pmtilesFile!), serve: false, acceptRanges: true });
      files.get('/console/basemap.pmtiles', (_request, reply) => reply.sendFile(basename(map.pmtilesFile!)));
    });
  }
  if (!built) {
    app.get('/', (_request, reply) => reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(notBuiltPage(dir)));
    return { fallback: () => false };
  }
  // Read once: the fallback answers from memory.
  const index = readFileSync(indexFile);
  await app.register(async (site) => {
    await site.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      // A route per file of the build (read at start, as index.html is), not a catch-all `/*`: a
      // catch-all would also take API paths the router refuses (a 5,000-character id) and answer
      // them as missing files instead of our envelope.
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders(reply, path) {
        // Vite names assets after their content: they never change under one name.
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    site.get('/', (_request, reply) => sendIndex(reply, index));
  });
  return {
    fallback(request, reply) {
      const path = String(request.url).split('?')[0];
      if (request.method !== 'GET' || NOT_CONSOLE.test(path) || /\.[a-z0-9]+$/i.test(path)) return false;
      if (!String(request.headers.accept ?? '').includes('text/html')) return false;
      sendIndex(reply, index);
      return true;
    },
  };
}

function sendIndex(reply: FastifyReply, index: Buffer) {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(index);
}
