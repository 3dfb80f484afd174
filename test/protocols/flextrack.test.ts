import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/flextrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

// The acknowledgement `<index>,ACK\r` follows the open-source server's implementation; no public
// Flextrack document confirms it.
describe('flextrack replies', () => {
  it('acknowledges the logon and each status with its index', () => {
    expect(decode('-1,LOGON,7000000123,8945000000')).toEqual({ deviceId: '7000000123', reply: Buffer.from('-1,ACK\r') });
    expect(decode('-2,UNITSTAT,20050205,181923,7000004634,N55.46.0812,E009.21.1665,122,198,6,3934,-81,01A8,23802,213,55,37FD,45,0055,12878').reply?.toString()).toBe('-2,ACK\r');
  });
});

describe('flextrack decoding', () => {
  it('decodes the fix, battery and serving cell', () => {
    const [p] = decode('-2,UNITSTAT,20050205,181923,7000004634,N55.46.0812,E009.21.1665,122,198,6,3934,-81,01A8,23802,213,55,37FD,45,0055,12878').records!;
    expect(new Date(p.time!).toISOString()).toBe('2005-02-05T18:19:23.000Z');
    expect(p.lat).toBeCloseTo(55.76802, 5);
    expect(p).toMatchObject({ speed: 122, course: 198, satellites: 6, altitude: 213, hdop: 5.5 });
    expect(p.cells).toEqual([{ mcc: 238, mnc: 2, lac: 0x55, cid: 0x37fd, rssi: -81 }]);
    expect(p.attributes).toEqual({ battery: 3.934, rssi: -81, status: 0x01a8, odometer: 12878 });
  });
});
