import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/teltonika.ts';
import { crc16Ibm } from '../../protocols/binary.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const hex = (s: string) => Buffer.from(s, 'hex');
const ctx = (over: Partial<DecodeContext> = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, ...over });

const LOGIN = '000f313233343536373839303132333435';
// Codec 8, one record: FMB-style fix at 95 km/h with external power 14.375 V
const CODEC8 =
  '000000000000004508010000015eb70a86d00024089d4d21dee3860137005f12005f000e06ef01f00150011503c800450108b5000bb6000642382718005fcd057ace19d3430f57440000000001000002bf';
// Codec 8 over UDP (vendor example): packet id 0xcafe, AVL packet id 0x05, one record
const UDP =
  '003dcafe0105000f33353230393330383634303336353508010000016b4f815b30010000000000000000000000000000000103021503010101425dbc000001';

describe('teltonika decoder', () => {
  it('answers the IMEI packet with 0x01 and identifies the device', () => {
    const r = protocol.decode!(hex(LOGIN), ctx());
    expect(r.deviceId).toBe('123456789012345');
    expect(r.reply).toEqual(Buffer.from([0x01]));
  });

  it('acknowledges AVL data with the record count as u32 and decodes the fix', () => {
    const r = protocol.decode!(hex(CODEC8), ctx({ deviceId: '123456789012345' }));
    expect(r.reply?.toString('hex')).toBe('00000001');
    const [f] = r.records!;
    expect(f.time).toBe(Date.parse('2017-09-25T03:17:54.000Z'));
    expect(f.lat).toBeCloseTo(56.8255366, 7);
    expect(f.lng).toBeCloseTo(60.4544333, 7);
    expect(f.speed).toBe(95); // km/h as sent
    expect(f.course).toBe(95);
    expect(f.satellites).toBe(18);
    expect(f.valid).toBe(true);
    expect(f.attributes.power).toBeCloseTo(14.375, 6);
    expect(f.attributes.battery).toBeCloseTo(3.927, 6);
    expect(f.attributes.ignition).toBe(true);
    expect(f.attributes.hdop).toBeCloseTo(0.6, 6);
    expect(f.cells).toEqual([{ mcc: 0, mnc: 0, lac: 6611, cid: 1402 }]);
  });

  it('does not acknowledge data that arrives before the IMEI', () => {
    const r = protocol.decode!(hex(CODEC8), ctx());
    expect(r.reply).toBeUndefined();
    expect(r.records ?? []).toEqual([]);
  });

  it('answers a UDP datagram echoing packet id and AVL packet id with the count', () => {
    const r = protocol.decode!(hex(UDP), ctx({ transport: 'udp' }));
    expect(r.deviceId).toBe('352093086403655');
    expect(r.reply?.toString('hex')).toBe('0005cafe010501');
    expect(r.records).toHaveLength(1);
    expect(r.records![0].attributes.power).toBeCloseTo(23.996, 6);
  });

  it('ignores the 0xFF keep-alive', () => {
    expect(protocol.decode!(hex('ff'), ctx())).toEqual({});
  });

  it('turns a Codec 12 reply into a result record at the last known location', () => {
    const c = ctx({ deviceId: '123456789012345' });
    protocol.decode!(hex(CODEC8), c);
    const reply = protocol.decode!(protocol.encode!({ type: 'custom', attributes: { data: 'getver' } }, { deviceId: 'x', now: 0, config: {} }), c);
    expect(reply.reply).toBeUndefined();
    const [rec] = reply.records!;
    expect(rec.attributes.result).toBe('getver');
    expect(rec.valid).toBe(false);
    expect(rec.lat).toBeCloseTo(56.8255366, 7);
  });

  it('asks for the first photo chunk when the camera announces a photo', () => {
    const body = '01' + '00000007' + '00000100'; // announcement, photo id 7, 256 bytes
    const data = '0c010d' + (body.length / 2).toString(16).padStart(8, '0') + body + '01';
    const frame = hex('00000000' + (data.length / 2).toString(16).padStart(8, '0') + data + '00000000');
    const r = protocol.decode!(frame, ctx({ deviceId: '1' }));
    const req = r.reply!;
    expect(req.subarray(8, 11).toString('hex')).toBe('0c010d');
    expect(req.subarray(15, 26).toString('hex')).toBe('02' + '00000007' + '00000000' + '0100');
    expect(req.readUInt32BE(req.length - 4)).toBe(crc16Ibm(req, 8, req.length - 4));
  });
});

describe('teltonika framer', () => {
  const framer = () => protocol.createFramer!();

  it('waits for the rest of a split packet', () => {
    expect(framer().next(hex(LOGIN.slice(0, 10)))).toBeNull();
    expect(framer().next(hex(CODEC8.slice(0, 40)))).toBeNull();
    expect(framer().next(hex('00'))).toBeNull();
  });

  it('cuts several packets out of one chunk', () => {
    const f = framer();
    const buf = hex(LOGIN + CODEC8 + 'ff');
    const a = f.next(buf)!;
    expect(a.frame.toString('hex')).toBe(LOGIN);
    const b = f.next(buf.subarray(a.consumed))!;
    expect(b.frame.toString('hex')).toBe(CODEC8);
    const c = f.next(buf.subarray(a.consumed + b.consumed))!;
    expect(c.frame.toString('hex')).toBe('ff');
  });

  it('rejects garbage', () => {
    expect(() => framer().next(hex('00001234deadbeef'))).toThrow(FrameError);
    expect(() => framer().next(hex('0000000011223344'))).toThrow(FrameError);
    expect(() => framer().next(hex('4142434445'))).toThrow(FrameError);
  });
});

describe('teltonika encoder', () => {
  const enc = (type: string, attributes: Record<string, string | number | boolean>) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} });

  it('wraps text in a Codec 12 command with CRC-16/IBM', () => {
    expect(enc('custom', { data: 'setdigout 11' }).toString('hex')).toBe('00000000000000140c01050000000c7365746469676f7574203131010000bed5');
  });

  it('sends hex data as raw bytes', () => {
    expect(enc('custom', { data: '03030000000185E8' }).toString('hex')).toBe('00000000000000100c01050000000803030000000185e8010000da8b');
  });

  it('maps engine and output commands to setdigout', () => {
    const text = (b: Buffer) => b.subarray(15, b.length - 5).toString('latin1');
    expect(text(enc('engineStop', {}))).toBe('setdigout 1');
    expect(text(enc('engineResume', {}))).toBe('setdigout 0');
    expect(text(enc('outputControl', { index: 2, data: 1 }))).toBe('setdigout ?1');
  });

  it('throws for unsupported commands', () => {
    expect(() => enc('alarmSos', {})).toThrow();
  });
  it('sends chat text as a Codec 12 command', () => {
    expect(enc('message', { message: 'Go to depot 4' }).toString('hex')).toBe(enc('custom', { data: 'Go to depot 4' }).toString('hex'));
  });
});
