/**
 * Vite settings of the field app (docs/field-app.md, "The app"), served at /app/. Built by
 * web/app/build.ts (npm install, npm start, npm run build:app); `npx vite web/app` serves it with
 * hot reload against a server on :8080.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { UserConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.FSM_CONSOLE_API ?? 'http://127.0.0.1:8080';

const config: UserConfig = {
  root,
  base: '/app/',
  plugins: [react()],
  logLevel: 'warn',
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // MapLibre (the task map, loaded with the task screen) is one large module: a chunk of its own.
    chunkSizeWarningLimit: 1200,
    rolldownOptions: { output: { manualChunks: (id: string) => (id.includes('node_modules/maplibre-gl') ? 'maplibre' : undefined) } },
  },
  server: { proxy: Object.fromEntries(['/v2', '/console/config.json', '/console/basemap.pmtiles', '/basemap'].map((p) => [p, { target: api }])) },
};
export default config;
