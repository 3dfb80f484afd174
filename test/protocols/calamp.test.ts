import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/calamp.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'udp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

const USER_DATA = '830547643586340101010400105f9c39ba5f9c302eeb36d5bddf39df700000000000000000003400040321ff9f4f0087080200001c30783330304544383946333335303139303030303030343637450d0a';
const EVENT = '8305133303910501010102004557e5ab2457e3b3e01fd828dbfe9e3465000028c90000004201310704001effa12f0b22081bca05000000000000000f87000e8e2f00ea029e0000082d';

describe('calamp replies', () => {
  it('acknowledges an acknowledged-service message: 02 01, its sequence and type, result 0', () => {
    expect(decode(USER_DATA).reply?.toString('hex')).toBe('02010010040000000000');
    expect(decode(EVENT).reply?.toString('hex')).toBe('02010045020000000000');
  });
  it('does not answer an unacknowledged message', () => {
    const unacknowledged = EVENT.replace(/^(8305133303910501010)1/, '$10');
    expect(decode(unacknowledged).records).toHaveLength(1);
    expect(decode(unacknowledged).reply).toBeUndefined();
  });
});

describe('calamp decoding', () => {
  it('decodes an event report: id, 1e-7 degrees, altitude cm, speed cm/s, inputs, event, accumulators', () => {
    const r = decode(EVENT);
    expect(r.deviceId).toBe('1333039105');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2016-09-23T22:22:28.000Z');
    expect(f).toMatchObject({ lat: 53.4259931, lng: -2.3186331, altitude: 104.41, course: 305, satellites: 7, valid: true, hdop: 11 });
    expect(f.speed).toBeCloseTo(66 * 0.036, 6); // 66 cm/s
    expect(f.attributes).toMatchObject({ carrier: 30, rssi: -95, input: 0x22, ignition: false, status: 8, event: 202, acc1: 3975, acc4: 2093 });
  });
  it('keeps user data text as result', () => {
    expect(decode(USER_DATA).records![0].attributes.result).toBe('0x300ED89F335019000000467E');
  });
});

describe('calamp over the gateway (UDP only)', async () => {
  const dgram = await import('node:dgram');
  const { startTestServer } = await import('../helpers/server.ts');
  it('listens on UDP only and answers the ACK over UDP after storing the fix', async () => {
    const s = await startTestServer({ FSM_CALAMP_PORT: '0' });
    const sock = dgram.createSocket('udp4');
    try {
      expect(s.running.gateway.ports.calamp).toEqual({ udp: expect.any(Number) });
      const owner = await s.user('calamp@example.com');
      s.addTracker(owner.id, '1333039105', { protocol: 'calamp' });
      const reply = new Promise<Buffer>((resolve) => sock.once('message', resolve));
      sock.send(Buffer.from(EVENT, 'hex'), s.running.gateway.ports.calamp.udp!, '127.0.0.1');
      expect((await reply).toString('hex')).toBe('02010045020000000000');
      const stored = s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources src ON src.id = f.source_id WHERE src.device_id = ?').pluck().get('1333039105');
      expect(stored).toBe(1);
    } finally {
      sock.close();
      await s.close();
    }
  });
});
