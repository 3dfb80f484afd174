/**
 * Vite settings of the operator console. Built by web/console/build.ts (npm install, npm start,
 * npm run build:console); `npx vite web/console` serves it with hot reload against a server on
 * :8080 (the proxy below).
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { UserConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.FSM_CONSOLE_API ?? 'http://127.0.0.1:8080';

const config: UserConfig = {
  root,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // MapLibre is one large module: it gets its own chunk, cached apart from the console's code.
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      output: {
        manualChunks: (id: string) => (id.includes('node_modules/maplibre-gl') ? 'maplibre' : id.includes('node_modules/react') ? 'react' : undefined),
      },
    },
  },
  server: { proxy: Object.fromEntries(['/v2', '/console/config.json', '/console/basemap.pmtiles', '/basemap'].map((p) => [p, { target: api, ws: true }])) },
};
export default config;
