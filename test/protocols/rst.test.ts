import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/rst.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });
const REPORT = 'RST;A;RST-MINIv5;V9.08;009767055;248;55;14-12-2023 19:34:20;14-12-2023 19:34:21;-12.923640;-38.388313;0;14;17;1;4;15;00;B0;00;1A;02;12.18;4.02;65;21;FE;0000;01;C0;001606017031;0002;FIM;';

// The acknowledgement (`RST;A;<model>;<firmware>;<serial>;<index>;6;FIM;`) follows the open-source
// server's implementation; no public RST document confirms it.
describe('rst replies', () => {
  it('acknowledges a report with its model, firmware, serial and index', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('009767055');
    expect(r.reply?.toString()).toBe('RST;A;RST-MINIv5;V9.08;009767055;248;6;FIM;');
  });
  it('acknowledges an answer too, placing it at the last fix', () => {
    const c = ctx();
    protocol.decode!(Buffer.from(REPORT), c);
    const r = protocol.decode!(Buffer.from('RST;A;RST-MINIv5;V9.08;009767055;1;134;FIM;'), c);
    expect(r.reply?.toString()).toBe('RST;A;RST-MINIv5;V9.08;009767055;1;6;FIM;');
    expect(r.records![0]).toMatchObject({ lat: -12.92364, valid: false, attributes: { result: '134' } });
  });
});

describe('rst decoding', () => {
  it('reads the fix, the IO bytes and the driver of a type-55 report', () => {
    const [p] = protocol.decode!(Buffer.from(REPORT), ctx()).records!;
    expect(new Date(p.time!).toISOString()).toBe('2023-12-14T19:34:21.000Z');
    expect(p).toMatchObject({ lat: -12.92364, lng: -38.388313, speed: 0, course: 14, altitude: 17, valid: true, satellites: 4, hdop: 15 });
    expect(p.attributes).toMatchObject({ input: 0xb000, ignition: true, output: 0x021a, power: 12.18, battery: 4.02, odometer: 65, rssi: 21, temp1: -2, status: 0x01c0, driverUniqueId: '001606017031' });
  });
});
