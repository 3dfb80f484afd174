import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/cellocator.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => Buffer.from(h, 'hex');

// The status message of the vendor's "Integration: practical examples" (unit 549765, numerator 0xB2).
const STATUS = '4d43475000856308000004b2de1f04009e00200100000000696cf7ab002f1a00000000000000325c000402069bfde70857e22502f41c000036000000df0b0932100b09dc0719';
const MODULAR =
  '4d4347500ba9880b00c80a7e003800000000000806000001210a14000613000000000d4457a5f71442ac02e80300000100040707000011171408060e1c08000100000200020000fd';

describe('cellocator replies', () => {
  // Not confirmed against a public document (the wireless protocol specification is not public):
  // `MCGP | 04 | unit id | numerator 0 | authentication 0 | action 0 | numerator of the confirmed message | 11 zero bytes | sum`.
  it('acknowledges a status message with a type 4 message naming its numerator', () => {
    const r = protocol.decode!(hex(STATUS), ctx());
    expect(r.deviceId).toBe('549765');
    expect(r.reply?.toString('hex')).toBe('4d43475004856308000000000000' + '00b2' + '0000000000000000000000' + 'a6');
  });
  // Not confirmed against a public document: a type 11 message holding module 9 (acknowledge) of 3 bytes.
  it('acknowledges a modular message with the acknowledge module', () => {
    const r = protocol.decode!(hex(MODULAR), ctx());
    expect(r.reply?.toString('hex')).toBe('4d4347500ba9880b007e00000000800a0000000000090300000000' + '5b');
  });
});

describe('cellocator decoding', () => {
  it('decodes a status message', () => {
    const [r] = protocol.decode!(hex(STATUS), ctx()).records!;
    expect(new Date(r.time!).toISOString()).toBe('2012-09-11T16:50:09.000Z');
    expect(r.lat).toBeCloseTo(20.6478, 4);
    expect(r.lng).toBeCloseTo(85.6122, 4);
    expect(r).toMatchObject({ satellites: 6, altitude: 74.12, attributes: { event: 32, ignition: false, odometer: 6703 } });
  });
  it('decodes the GPS, time and variable modules of a modular message', () => {
    const [r] = protocol.decode!(hex(MODULAR), ctx()).records!;
    expect(new Date(r.time!).toISOString()).toBe('2014-06-08T20:23:17.000Z');
    expect(r).toMatchObject({ valid: false, hdop: 0, satellites: 13, altitude: 10 });
    expect(r.lat).toBeCloseTo(25.69346, 5);
  });
  it('rejects a bad checksum', () => {
    expect(() => protocol.decode!(hex(STATUS.slice(0, -2) + '00'), ctx())).toThrow(/checksum/);
  });
});

describe('cellocator framer and encoder', () => {
  it('cuts messages by their type', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex(STATUS + MODULAR))?.consumed).toBe(70);
    expect(f.next(hex(MODULAR + STATUS))?.frame.toString('hex')).toBe(MODULAR);
    expect(f.next(hex(MODULAR.slice(0, 60)))).toBeNull();
    expect(() => f.next(hex('00112233445566778899'))).toThrow(FrameError);
  });
  it('encodes output control with the command code and data bytes sent twice', () => {
    const b = protocol.encode!({ type: 'outputControl', attributes: { index: 2, data: '1' } }, { deviceId: '549765', now: 0, config: {} });
    expect(b.toString('hex')).toBe('4d4347500085630800' + '00' + '00000000' + '0303' + '1010' + '0202' + '00000000' + '1a');
  });
});
