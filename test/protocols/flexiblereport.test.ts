import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/flexiblereport.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const MSG = '7d010015875000013001001028fd98991830002e7fffffff0c28fd989903f6540a07f250ed00000f02f2140f5ea20000000000000202d4000a1f8b0100000708ffff';

describe('flexiblereport replies', () => {
  // Not confirmed by a public document: the E0 acknowledgement (4F for an odd index, 0F for even), as the widely
  // used open-source server sends it.
  it('acknowledges a packet whose flags ask for it', () => {
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx()).reply!.toString('hex')).toBe('7e0002e00f');
    expect(protocol.decode!(Buffer.from(`7d00${MSG.slice(4)}`, 'hex'), ctx()).reply).toBeUndefined();
  });
});

describe('flexiblereport decoding', () => {
  it('reads the general report by its mask', () => {
    const r = protocol.decode!(Buffer.from(MSG, 'hex'), ctx());
    expect(r.deviceId).toBe('015875000013001');
    expect(r.records![0]).toMatchObject({ valid: true, speed: 0, course: 15, altitude: 754, attributes: { event: 24, power: 24.226, ignition: true, input: 139, output: 1, odometer: 1800000 } });
    expect(r.records![0].lat).toBeCloseTo(-23.524982, 6);
  });
});
