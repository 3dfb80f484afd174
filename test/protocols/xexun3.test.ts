import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/xexun3.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const DATA = 'fc0040032006086104508038701564216913f223403693012f635344405c829142b302f7427f33331a2e000000a40011046a1055ffff1f0000000000ffffff04ff09ff1a30cf';

describe('xexun3 replies', () => {
  // Not confirmed by a public document: the acknowledgement layout (type, index and IMEI echoed, result 0,
  // CRC-16/CCITT-FALSE), as the widely used open-source server sends it.
  it('acknowledges a packet with its type, index and IMEI', () => {
    expect(decode('fc000b03200108610450803870158318cf').reply!.toString('hex')).toBe('fc000c032001086104508038701500b9ebcf');
  });
  it('does not acknowledge a command answer (type 0x21)', () => {
    expect(decode('fc000b03210108610450803870158318cf').reply).toBeUndefined();
  });
});

describe('xexun3 decoding', () => {
  it('yields nothing for a packet without time, and the IMEI without its pad digit', () => {
    const r = decode('fc000b03200108610450803870158318cf');
    expect([r.deviceId, r.records]).toEqual(['861045080387015', undefined]);
  });
  it('reads the fix and status sub-records', () => {
    const [f] = decode(DATA).records!;
    expect(f).toMatchObject({ time: 1762914851000, valid: true, satellites: 46, speed: 0, attributes: { batteryLevel: 85, rssi: 31, motion: false, charge: false, steps: 0 } });
    expect([f.lat, f.lng]).toEqual([22.57423683333333, 114.040116]);
  });
  it('frames by the length field', () => {
    const stream = Buffer.from(DATA + 'fc00', 'hex');
    expect(protocol.createFramer!().next(stream)!.frame.toString('hex')).toBe(DATA);
  });
});
