import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/s168.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('s168 replies', () => {
  it('sends nothing back (no answer is expected)', () => {
    expect(decode('S168#358511139046180#00c9#0009#SYNC:0000')).toEqual({ deviceId: '358511139046180' });
  });
});

describe('s168 decoding', () => {
  it('reads GDATA, cells, status and Wi-Fi', () => {
    const [f] = decode('S168#000000000000008#0f12#0077#LOCA:G;CELL:1,1cc,2,2795,1435,64;GDATA:A,12,160412154800,22.564025,113.242329,5.5,152,900;ALERT:0000;STATUS:89,98;WIFI:1,8C-AB-8E-9D-73-18,-56;WAY:0').records!;
    expect(f).toEqual({
      valid: true, satellites: 12, time: Date.UTC(2016, 3, 12, 15, 48), lat: 22.564025, lng: 113.242329, speed: 5.5, course: 152, altitude: 900,
      cells: [{ mcc: 460, mnc: 2, lac: 0x2795, cid: 0x1435, rssi: 0x64 }],
      attributes: { batteryLevel: 89, rssi: 98, wifi: '8c:ab:8e:9d:73:18,-56' },
    });
  });
  it('keeps a status without GDATA as a record at its arrival time', () => {
    expect(decode('S168#861118010104168#00ec#0016#SYNC:0093;STATUS:91,51').records).toEqual([{ time: Date.UTC(2025, 0, 1), attributes: { batteryLevel: 91, rssi: 51 } }]);
  });
});
