import { describe, it, expect } from 'vitest';
import dgram from 'node:dgram';
import { protocol } from '../../protocols/freematics.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { startTestServer } from '../helpers/server.ts';

const NOW = Date.UTC(2025, 1, 22, 12, 0, 0);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'udp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('freematics replies', () => {
  it('answers an event with RX=1, its event and time stamp and the byte sum', () => {
    const r = decode('UCFLFAYM#EV=4,TS=373624,ID=UCFLFAYM,SSI=-79,VIN=WAUZZZ8K9CA123456*D7');
    expect(r.deviceId).toBe('UCFLFAYM');
    expect(r.reply?.toString()).toBe('1#EV=4,RX=1,TS=373624*ED');
    expect(r.records![0].attributes).toEqual({ vin: 'WAUZZZ8K9CA123456' });
  });
  it('answers data with nothing', () => {
    expect(decode('M0ZR4X0#0:566624,24:1246,20:0;0;0*D').reply).toBeUndefined();
  });
});

describe('freematics decoding', () => {
  it('decodes data records: date and time, coordinates, km/h, OBD PIDs, battery', () => {
    const r = decode('1#0:68338,11:140221,10:8445000,10D:79,30:1010,105:199,10C:4375,104:56,111:62,20:0;-1;95,A:-32.727482,B:150.150301,C:159,D:12,F:5,24:1250*7A');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2021-02-14T08:44:50.000Z');
    expect(f).toMatchObject({ valid: true, lat: -32.727482, lng: 150.150301, altitude: 159, speed: 12, satellites: 5 });
    expect(f.attributes).toMatchObject({ obdSpeed: 79, coolantTemp: 199, rpm: 4375, engineLoad: 56, throttle: 62, acceleration: '0;-1;95', battery: 12.5, io48: '1010' });
  });
  it('starts a record at each key 0 and places one without a position at the last fix', () => {
    const c = ctx();
    decode('1#0:1,A:10.5,B:20.5*00', c);
    const { records } = decode('1#0:2,24:423,0:3,24:425*00', c);
    expect(records).toHaveLength(2);
    expect(records!.map((r) => [r.lat, r.valid, r.attributes.battery])).toEqual([[10.5, false, 4.23], [10.5, false, 4.25]]);
  });
});

describe('freematics over the gateway (UDP only)', () => {
  it('answers an event over UDP', async () => {
    const s = await startTestServer({ FSM_FREEMATICS_PORT: '0' });
    const sock = dgram.createSocket('udp4');
    try {
      expect(s.running.gateway.ports.freematics).toEqual({ udp: expect.any(Number) });
      const owner = await s.user('freematics@example.com');
      s.addTracker(owner.id, 'UCFLFAYM', { protocol: 'freematics' });
      const reply = new Promise<Buffer>((resolve) => sock.once('message', resolve));
      sock.send(Buffer.from('UCFLFAYM#EV=4,TS=373624,ID=UCFLFAYM,SSI=-79,VIN=WAUZZZ8K9CA123456*D7'), s.running.gateway.ports.freematics.udp!, '127.0.0.1');
      expect((await reply).toString()).toBe('1#EV=4,RX=1,TS=373624*ED');
    } finally {
      sock.close();
      await s.close();
    }
  });
});
