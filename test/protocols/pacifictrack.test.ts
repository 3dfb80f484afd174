import { describe, it, expect } from 'vitest';
import { protocol, readBitExt } from '../../protocols/pacifictrack.ts';
import { Reader } from '../../protocols/binary.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'udp', config: {}, session: {} });

describe('pacifictrack', () => {
  it('reads bit-extended numbers (7 bits a byte, bit 7 ends)', () => {
    expect(readBitExt(new Reader(Buffer.from('8a', 'hex')))).toBe(0x0a);
    expect(readBitExt(new Reader(Buffer.from('0280', 'hex')))).toBe(0x100);
    expect(readBitExt(new Reader(Buffer.from('0197', 'hex')))).toBe(151);
  });

  it('decodes IMEI, GPS, voltages and engine values, and sends no answer', () => {
    const r = protocol.decode!(
      Buffer.from(
        'fb82e80280883527530900009110818202c0909308990b122519076138fc03b3480205a3e80003a0834dd19fb08112c08f0143000e020000000100000014000101929f806328c0000f4240810a858ce011314334424a57464758444c3533313737330190868102100828cf',
        'hex',
      ),
      ctx(),
    );
    expect(r.deviceId).toBe('352753090000911');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2029-09-11T18:37:25.000Z');
    expect(p).toMatchObject({ valid: false, course: 90, speed: 100 });
    expect(p.lat).toBeCloseTo(33.812092, 6);
    expect(p.lng).toBeCloseTo(-117.918974, 6);
    expect(p.attributes).toMatchObject({ event: 320, index: 3, battery: 4.15, power: 12.45, obdSpeed: 99, rpm: 320, odometer: 100000000 });
  });

  it('a frame without GPS and no valid fix before is a status record at the time of arrival', () => {
    const r = protocol.decode!(Buffer.from('fb80b48181b20192ae86e68780882d89bb8a648bcea008aca16600a20380c10003df2cc200004e20c3004428c0c4000008c6c5000316a4', 'hex'), ctx());
    expect(r.records).toEqual([{ time: NOW, attributes: { event: 50, coolantTemp: 88, fuelLevel: 18, engineLoad: 100, hours: 45673200000, fuelUsed: 1123 } }]);
  });
});
