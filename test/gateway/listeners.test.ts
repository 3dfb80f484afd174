/** The gateway listens for every registered protocol on the transports it declares (issue 9). */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROTOCOLS, portVariable } from '../../protocols/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(Object.fromEntries([...PROTOCOLS.keys()].map((name) => [portVariable(name), '0'])));
});
afterAll(async () => {
  await s?.close();
  if (s) rmSync(s.dataDir, { recursive: true, force: true });
});

it('opens a listener per registered protocol and transport, and none for a protocol turned off', async () => {
  const ports = s.running.gateway.ports;
  expect(Object.keys(ports).sort()).toEqual([...PROTOCOLS.keys()].sort());
  for (const p of PROTOCOLS.values()) expect(Object.keys(ports[p.name]).sort()).toEqual([...p.transports].sort());
  const other = await startTestServer({ FSM_WIALON_PORT: '0', FSM_GT06_PORT: 'off' });
  try {
    expect(Object.keys(other.running.gateway.ports)).toEqual(['wialon']);
  } finally {
    await other.close();
    rmSync(other.dataDir, { recursive: true, force: true });
  }
});
