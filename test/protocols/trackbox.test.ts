import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/trackbox.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (s: string, id?: string) => protocol.decode!(Buffer.from(s), ctx(id));
const FIX = '183457.999,5126.0247N,00002.8686E,5.2,70.4,3,57.63,32.11,17.32,150507,05';

describe('trackbox replies', () => {
  // Not confirmed by a public document: =OK= to the login and to each fix, as the widely used open-source server answers.
  it('answers the login and each fix with =OK=', () => {
    expect(decode('a=connect&v=11&i=111111111111111')).toEqual({ deviceId: '111111111111111', reply: Buffer.from('=OK=\r\n') });
    expect(decode(FIX, '111111111111111').reply!.toString()).toBe('=OK=\r\n');
  });
});

describe('trackbox decoding', () => {
  it('reads a fix of a known device; nothing before the login', () => {
    const [f] = decode(FIX, '1').records!;
    expect(f).toMatchObject({ time: Date.UTC(2007, 4, 15, 18, 34, 57, 999), valid: true, hdop: 5.2, altitude: 70.4, course: 57.63, satellites: 5, attributes: { fixType: 3 } });
    expect(f.speed).toBeCloseTo(17.32 * 1.852, 9);
    expect(decode(FIX)).toEqual({});
  });
});
