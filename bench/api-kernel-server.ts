/**
 * The two servers bench/api-kernel compares, one per process: `bare` is a plain Fastify route
 * answering a tracker-list-sized JSON; `api` is the real API (kernel, store, resources, its pino
 * logger at warn) with a user and 10 trackers.
 * Prints one JSON line {port, hash?} once listening.
 */
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { buildApi } from '../src/api/server.ts';
import { ChatDelivery } from '../src/gateway/chat.ts';
import { createGeocoder } from '../src/geocoder/index.ts';
import { openStore } from '../src/store/index.ts';

const mode = process.argv[2];
// Exit cleanly on a signal, so --cpu-prof can write its profile.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(0));
if (mode === 'bare') {
  const app = Fastify();
  const list = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, label: `Truck ${i + 1}`, clone: false, group_id: -1, source: { id: i + 1, device_id: `35000000000000${i}`, model: 'FMB920', blocked: false, tariff_id: 1, status_listing_id: null, creation_date: '2026-01-01 00:00:00', tariff_end_date: null, phone: null }, tag_bindings: [] }));
  app.post('/v2/fsm/tracker/list', async () => ({ success: true, list }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port }));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-bench-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const config = loadConfig({ FSM_DATA_DIR: dir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_LOG_LEVEL: 'warn', ...off });
  // The API alone (kernel, store, resources): the gateway and the telemetry pool are not what this measures.
  const store = openStore(config.dbFile);
  const services = { config, store, mailer: createMailer(config.mail), now: Date.now, chat: new ChatDelivery(store.chat), geocoder: createGeocoder(config.geocoder, { cache: store.geocache }) };
  const app = await buildApi(services, { logger: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { id } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'bench@example.com', password: 'bench' });
  for (let i = 0; i < 10; i++) store.trackers.add({ userId: id, deviceId: `35000000000000${i}`, protocol: 'teltonika', label: `Truck ${i + 1}`, model: 'FMB920', tariffId: 1, now: Date.now() });
  const hash = store.sessions.create(id, 'user', Date.now());
  console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, hash }));
}
