import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/piligrim.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { startTestServer } from '../helpers/server.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'http', config: {}, session: {} });
const post = (uri: string, body: Buffer | string) =>
  protocol.decodeHttp!({ method: 'POST', uri, headers: {}, body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1') }, ctx());
const BIN = Buffer.from('fff2200d4110061a32354f3422310062000a0005173b0000a101000300005e00fff2200d4110100932354f2b22310042000b000e173b00009f01000700006000', 'hex');
const PUSH = '&phoneNumber=%2B+78000000000&message=ALARM KEY; $GPRMC,180752.000,A,5314.0857,N,03421.8173,E,0.00,104.74,220722,,,A,V* 29,05; GSM: 250-01 0b54-0519,1c30,3e96,3ebe,412e 25;  S; Batt: 405,M';

describe('piligrim replies', () => {
  it('answers every kind with 200 and its OK text', () => {
    expect(post('/bingps?imei=868204005544720&csq=18', BIN)).toMatchObject({ status: 200, body: 'BINGPS: OK', deviceId: '868204005544720' });
    expect(post('/push.do', PUSH)).toMatchObject({ status: 200, body: 'PUSH.DO: OK', deviceId: '78000000000' });
    expect(post('/config?imei=1', '')).toEqual({ status: 200, body: 'CONFIG: OK' });
    expect(post('/addlog', '')).toEqual({ status: 200, body: 'ADDLOG: OK' });
    expect(post('/inform', '')).toEqual({ status: 200, body: 'INFORM: OK' });
  });
});

describe('piligrim decoding', () => {
  it('decodes binary GPS + sensor records', () => {
    const { records } = post('/bingps?imei=868204005544720', BIN);
    expect(records).toHaveLength(2);
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2014-01-13T16:06:26.000Z');
    expect(r.lat).toBeCloseTo(50 + 53 / 60 + 79 / 6000 + 52 / 600000, 6);
    expect(r).toMatchObject({ satellites: 10, valid: true, speed: 0, course: 10.23, attributes: { power: 0, battery: 4.17 } });
    expect(records![1].attributes).toEqual({ power: 0, battery: 4.15 });
  });
  it('decodes the RMC of a forwarded SMS', () => {
    const [r] = post('/push.do', PUSH).records!;
    expect(new Date(r.time!).toISOString()).toBe('2022-07-22T18:07:52.000Z');
    expect(r.lat).toBeCloseTo(53.234762, 5);
    expect(r.course).toBe(104.74);
  });
});

describe('piligrim over the gateway (HTTP)', () => {
  it('answers 200 with the OK text after storing the records', async () => {
    const s = await startTestServer({ FSM_PILIGRIM_PORT: '0' });
    try {
      const owner = await s.user('piligrim@example.com');
      s.addTracker(owner.id, '868204005544720', { protocol: 'piligrim' });
      const res = await fetch(`http://127.0.0.1:${s.running.gateway.ports.piligrim.http}/bingps?imei=868204005544720&csq=18`, { method: 'POST', body: BIN });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('BINGPS: OK');
      const stored = s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources src ON src.id = f.source_id WHERE src.device_id = ?').pluck().get('868204005544720');
      expect(stored).toBe(2);
    } finally {
      await s.close();
    }
  });
});
