import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/ruptela.ts';
import { crc16Kermit } from '../../protocols/binary.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const hex = (s: string) => Buffer.from(s, 'hex');
const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });

// records (command 1), one fix: 2015-10-06 14:21:33, 13.286 V external power
const RECORDS =
  '0050000310f5615f419c0100015613d8ed0000fff5b37a035af37801e700000900000d07071b0c020003001c01202cad000500064302a81d33e61e100116317cd3ffff174ad60241000077fa960000f232003c2e';
const IDENTIFICATION = '002e000316d53d58d6020f4573303430302e30332e36382e30340000c2b3090d0e950000827b000003e80000003c003c1681';
const SMS_REPLY = '0044000313612d76c5cb0744494e313d312c44494e323d302c44494e333d302c44494e343d302c444f5554313d312c444f5554323d312c41494e313d31372c41494e323d3236ac80';

describe('ruptela decoder', () => {
  it('uses CRC-16/KERMIT', () => {
    expect(crc16Kermit(Buffer.from('123456789'))).toBe(0x2189);
  });

  it('acknowledges records and decodes the fix', () => {
    const r = protocol.decode!(hex(RECORDS), ctx());
    expect(r.deviceId).toBe('863071016796572');
    expect(r.reply?.toString('hex')).toBe('0002640113bc');
    const [f] = r.records!;
    expect(f.time).toBe(Date.parse('2015-10-06T14:21:33Z'));
    expect(f.lat).toBeCloseTo(5.6292216, 7);
    expect(f.lng).toBeCloseTo(-0.067495, 7);
    expect(f.altitude).toBeCloseTo(48.7, 6);
    expect(f.satellites).toBe(9);
    expect(f.hdop).toBeCloseTo(1.3, 6);
    expect(f.attributes.power).toBeCloseTo(13.286, 6);
    expect(f.attributes.battery).toBeCloseTo(4.097, 6);
    expect(f.attributes.odometer).toBe(30714);
  });

  it('answers identification with command 115 and status 1', () => {
    const r = protocol.decode!(hex(IDENTIFICATION), ctx());
    expect(r.deviceId).toBe('869530043209218');
    expect(r.records).toBeUndefined();
    const reply = r.reply!;
    expect(reply.subarray(0, 4).toString('hex')).toBe('00027301');
    expect(reply.readUInt16BE(4)).toBe(crc16Kermit(reply, 2, 4));
  });

  it('turns an SMS-via-GPRS reply into a result record', () => {
    const [rec] = protocol.decode!(hex(SMS_REPLY), ctx()).records!;
    expect(rec.attributes.result).toBe('DIN1=1,DIN2=0,DIN3=0,DIN4=0,DOUT1=1,DOUT2=1,AIN1=17,AIN2=26');
  });

  it('rejects a corrupted packet', () => {
    const bad = hex(RECORDS);
    bad[20] ^= 0xff;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });
});

describe('ruptela framer', () => {
  const framer = () => protocol.createFramer!();
  it('waits for a whole packet', () => {
    expect(framer().next(hex(RECORDS.slice(0, 30)))).toBeNull();
    expect(framer().next(hex('00'))).toBeNull();
  });
  it('cuts consecutive packets', () => {
    const buf = hex(RECORDS + IDENTIFICATION);
    const a = framer().next(buf)!;
    expect(a.frame.toString('hex')).toBe(RECORDS);
    expect(framer().next(buf.subarray(a.consumed))!.frame.toString('hex')).toBe(IDENTIFICATION);
  });
  it('rejects impossible lengths', () => {
    expect(() => framer().next(hex('0003aabbcc'))).toThrow(FrameError);
  });
});

describe('ruptela encoder', () => {
  const enc = (type: string, attributes: Record<string, string | number | boolean>) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} });
  it('sends text as an SMS-via-GPRS command (108)', () => {
    expect(enc('custom', { data: ' Setio 2,1' }).toString('hex')).toBe('000b6c20536574696f20322c31eb3e');
  });
  it('passes a hex packet through', () => {
    expect(enc('custom', { data: '000b890100000000007fffffff89f0' }).toString('hex')).toBe('000b890100000000007fffffff89f0');
  });
  it('encodes output control as command 117 with index and value', () => {
    const b = enc('outputControl', { index: 1, data: 1 });
    expect(b.subarray(0, 11).toString('hex')).toBe('0009' + '75' + '00000001' + '00000001');
    expect(b.readUInt16BE(11)).toBe(crc16Kermit(b, 2, 11));
  });
  it('sends the immobilizer text for engineStop', () => {
    expect(enc('engineStop', {}).subarray(3, -2).toString()).toBe('pass immobilizer 10');
  });
});
