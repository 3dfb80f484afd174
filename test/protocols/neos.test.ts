import { describe, it, expect } from 'vitest';
import { protocol as neos } from '../../protocols/neos.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });

describe('neos (the TR-900 format over UDP)', () => {
  it('decodes a datagram; no answer', () => {
    const r = neos.decode!(Buffer.from('>12345678,1,1,070201,144111,W05829.2613,S3435.2313,,00,034,25,00,126-000,0,3,11111111*2d!\r\n'), ctx());
    expect(r.deviceId).toBe('12345678');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2007-02-01T14:41:11.000Z');
    expect(p.lat).toBeCloseTo(-34.587188, 6);
    expect(p.lng).toBeCloseTo(-58.487688, 6);
    expect(neos).toMatchObject({ name: 'neos', defaultPort: 5183, transports: ['udp'] });
  });
});
