import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/huasheng.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);
const encode = (type: string, attributes: Record<string, string | number> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex');

const LOGIN = 'c000000077aa0200000000000e000100143347315f48312e315f56312e30372e54000300133335353835353035303434303635380004000b3531323030303000050005010006000400070004000800050000090018383936313032353431343533333239313833360d000a000f796573696e7465726e6574c0';
const POSITION = 'c000000060aa000000000000fa8000000031393037303431363434323700e9900affd61c1b00000000003a000000010015ffffff0000000000000004c2ffffffffff0005000a0d080000ca6a000900155741555a5a5a344730454e313133373233c0';
const HEARTBEAT = 'c0010c003c0002000000000044020010a0014f42445f3347315f56322e320013a0043335353835353035313032303536360006a08700000006a0a105c9c0';

describe('huasheng replies', () => {
  it('answers the login with FF03, the login index and result 00', () => {
    const r = decode(LOGIN);
    expect(r.deviceId).toBe('355855050440658');
    expect(r.reply?.toString('hex')).toBe('c00100000dff0300000000000e00c0');
  });
  it('answers a position with FF01 and a heartbeat with 0003, echoing the index', () => {
    expect(decode(POSITION).reply?.toString('hex')).toBe('c00100000cff010000000000fac0');
    expect(decode(HEARTBEAT).reply?.toString('hex')).toBe('c00100000c0003000000000044c0');
  });
});

describe('huasheng decoding', () => {
  it('decodes a position: status bits, 1e-5 degrees, km/h, TLVs (rssi, hdop, VIN)', () => {
    const [r] = decode(POSITION).records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-07-04T16:44:27.000Z');
    expect(r).toMatchObject({ lat: -27.45317, lng: 153.06762, valid: true, speed: 0, course: 0, altitude: 58, hdop: 8 });
    expect(r.attributes).toMatchObject({ ignition: false, rssi: 13, power: 12.18, vin: 'WAUZZZ4G0EN113723' });
    // 0xFF / 0xFFFF: not available
    expect(r.attributes).not.toHaveProperty('coolantTemp');
    expect(r.attributes).not.toHaveProperty('rpm');
    expect(r.attributes).not.toHaveProperty('fuel');
  });
  it('decodes OBD values with their scales and fault codes', () => {
    const [o] = decode('c000000044aa00000000000030c000000031353035323630373538323800addcc100226aef00000000001200050001001880033c0300190bfb000804baff00645866487f28c0').records!;
    expect(o.attributes).toMatchObject({ coolantTemp: 88, rpm: 828, fuelLevel2: 100, adBlueLevel: 16 });
    const [f] = decode('c00000001caa120000000000020001001001000200030043008200c100c0').records!;
    expect(f.attributes.dtcs).toBe('P0100 P0200 P0300 C0300 B0200 U0100');
  });
});

describe('huasheng framer', () => {
  const next = (hex: string) => protocol.createFramer!().next(Buffer.from(hex, 'hex'));
  it('cuts between C0 markers and un-escapes DB DC / DB DD', () => {
    expect(next('c0aadbdcdbddbbc0c0')?.frame.toString('hex')).toBe('c0aac0dbbbc0');
    expect(next('c0aabb')).toBeNull();
    expect(() => next('aabbc0')).toThrow(FrameError);
  });
});

describe('huasheng commands', () => {
  it('encodes settings and output control', () => {
    expect(encode('outputControl', { index: 1, data: '1' })).toBe('c00000000daa1600000000000101c0');
    expect(encode('positionPeriodic', { frequency: 60 })).toBe('c000000012aa0400000000000100020006003cc0');
    expect(encode('alarmArm')).toBe('c000000011aa0400000000000100010005' + '01c0');
  });
});
