import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/smokey.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 1, 2, 3), transport: 'udp', config: {}, session: {} });
const MSG = '534d0300865101019383025f0403000000000b86250200000c0000028f000102f8cc0900127f08';

describe('smokey replies', () => {
  // Not confirmed by a public document: the acknowledgement (the id, the server time since 2000, the index, the
  // report, a XOR checksum seeded 0xF5A0), as the widely used open-source server sends it.
  it('acknowledges a data record', () => {
    const reply = protocol.decode!(Buffer.from(MSG, 'hex'), ctx()).reply!;
    expect(reply.toString('hex')).toBe('534d0301865101019383025f' + (Math.floor((Date.UTC(2025, 1, 22, 1, 2, 3) - Date.UTC(2000, 0, 1)) / 1000)).toString(16).padStart(8, '0') + '2500f532');
  });
});

describe('smokey decoding', () => {
  it('reads the record and its cell', () => {
    const r = protocol.decode!(Buffer.from(MSG, 'hex'), ctx());
    expect(r.deviceId).toBe('865101019383025f');
    expect(r.records![0]).toEqual({ attributes: { versionFw: 1027, status: 0, index: 37, battery: 0 }, cells: [{ mcc: 655, mnc: 1, lac: 760, cid: 52233, rssi: 18 }], time: Date.UTC(2000, 0, 1) + 0xb86 * 1000 });
  });
});
