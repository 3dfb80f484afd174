/** The shared checksums against their published check values (input "123456789"). */
import { describe, expect, it } from 'vitest';
import { crc8Maxim, crc16CcittFalse, crc16Ibm, crc16Kermit, crc16Modbus, crc16X25, crc16Xmodem, xorSum } from '../../protocols/binary.ts';

const CHECK = Buffer.from('123456789');

describe('CRC-16 variants', () => {
  it('match their check values', () => {
    expect(crc16Ibm(CHECK)).toBe(0xbb3d);
    expect(crc16Kermit(CHECK)).toBe(0x2189);
    expect(crc16Modbus(CHECK)).toBe(0x4b37);
    expect(crc16X25(CHECK)).toBe(0x906e);
    expect(crc16CcittFalse(CHECK)).toBe(0x29b1);
    expect(crc16Xmodem(CHECK)).toBe(0x31c3);
    expect(xorSum(CHECK)).toBe(0x31);
    expect(crc8Maxim(CHECK)).toBe(0xa1);
  });
  it('take a range', () => {
    const framed = Buffer.concat([Buffer.from([0xaa, 0xbb]), CHECK, Buffer.from([0xcc])]);
    expect(crc16Ibm(framed, 2, 11)).toBe(0xbb3d);
  });
});
