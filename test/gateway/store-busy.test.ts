/**
 * A database locked for longer than the busy timeout (a long transaction of another part on a
 * loaded machine) delays the acknowledgement instead of dropping the device: the writer tries the
 * commit again, the ACK follows once the lock is gone, the connection stays, the fixes are stored
 * once.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** A real two-record Codec 8 Extended packet from the captures. */
const DATA = Buffer.from(
  '000000000000010e8e020000019769de9f9800015299f718b278040018007708000000000013000b00ef0100f00000150500c80000450100010100b30000020000030000b401017c00000500b5001a00b6000c004238d40043000000440000000200f10000539b00100000efc70001004e000000000000000000000000019769de5d3b00015299f718b27804001800770800002c350001000000000000000000012c3500700124050f4e65766572615f33000000000000000f067cd9f4110c4006020c8f0701340e020c1c24050f4e65766572615f31000000000000000f067cd9f411334606020c380701340e020c2624050f4e65766572615f32000000000000000f067cd9f411464706020c240701360e020c26020000a8b0',
  'hex',
);
const IMEI = '356307042441099';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0' });
});
afterAll(() => s?.close());

describe('the fix writer and a locked database', () => {
  it('a lock held 8 s (past the 5 s busy timeout): the ACK comes after it, the connection stays, the fixes are stored once', async () => {
    const owner = await s.user('fleet@example.com');
    s.addTracker(owner.id, IMEI);
    const socket = net.connect(s.running.gateway.ports.teltonika.tcp!, '127.0.0.1');
    let received = Buffer.alloc(0);
    let closed = false;
    socket.on('data', (d) => (received = Buffer.concat([received, d])));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    const until = async (cond: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      return cond();
    };
    try {
      socket.write(Buffer.concat([Buffer.from([0, IMEI.length]), Buffer.from(IMEI)]));
      expect(await until(() => received.length >= 1, 10_000)).toBe(true);

      s.sql.exec('BEGIN IMMEDIATE'); // the write lock, as a long transaction holds it
      const lockedAt = Date.now();
      try {
        socket.write(DATA);
        await new Promise((r) => setTimeout(r, 8000));
        expect(received.length).toBe(1); // nothing acknowledged while the data cannot be stored
        expect(closed).toBe(false);
      } finally {
        s.sql.exec('COMMIT');
      }
      expect(await until(() => received.length >= 5, 30_000)).toBe(true);
      expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(8000);
      expect(received.subarray(1).toString('hex')).toBe('00000002');
      expect(closed).toBe(false);
      expect(s.sql.prepare('SELECT count(*) FROM fixes f JOIN sources o ON o.id = f.source_id WHERE o.device_id = ?').pluck().get(IMEI)).toBe(2);
      expect(s.running.gateway.core.stats.storeFailures).toBe(0);
    } finally {
      socket.destroy();
    }
  }, 120_000);
});
