import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/egts.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 2), transport: 'tcp', config: {}, session: {} });
const hex = (s: string) => Buffer.from(s, 'hex');

const POS = '0100020b0025003a5701c91a003a5701cd6e68490202101700cbb4740f7617fd924364104f116a0000000000010300001ec2';
const AUTH = '0100010b002200c06401f21700c1640171360d00010101140071360d000238363539303500000000000000000047fc';

describe('egts decoding', () => {
  it('decodes POS_DATA: scaled coordinates, 0.1 km/h speed, seconds since 2010', () => {
    const r = protocol.decode!(hex(POS), ctx());
    expect(r.deviceId).toBe(String(0x49686ecd)); // object id stands for the device until it identifies
    const [fix] = r.records!;
    expect(fix.lat).toBeCloseTo(51.67569, 5);
    expect(fix.lng).toBeCloseTo(55.591896, 5);
    expect(fix.speed).toBeCloseTo(10.6, 6);
    expect(fix.valid).toBe(true);
    expect(fix.time).toBe(Date.UTC(2018, 2, 21, 5, 38, 19));
    expect(fix.attributes.motion).toBe(true);
  });

  it('confirms each record with an EGTS_PT_RESPONSE', () => {
    const r = protocol.decode!(hex(POS), ctx());
    expect(r.reply?.toString('hex')).toBe('0100000b001000000000683a5700060000000002020003003a57005c59');
  });

  it('takes the IMEI from TERM_IDENTITY and answers with a response and a result code', () => {
    const c = ctx();
    const r = protocol.decode!(hex(AUTH), c);
    expect(r.deviceId).toBe('865905');
    expect(r.records ?? []).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe(
      '0100000b00100000000068c0640006000000000101000300c16400de8a' + '0100000b000b00010001190400010000010109010000dd45',
    );
    // once identified, object ids in later records no longer replace the identity
    expect(protocol.decode!(hex(POS), c).deviceId).toBeUndefined();
  });

  it('rejects a packet whose data checksum is wrong', () => {
    const bad = hex(POS);
    bad[bad.length - 1] ^= 0xff;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });

  it('ignores the terminal confirming our packets', () => {
    expect(protocol.decode!(hex('0100000b0003006c430004010000acfb'), ctx())).toEqual({});
  });
});

describe('egts framer', () => {
  const framer = () => protocol.createFramer!();

  it('waits for the whole packet, then cuts it by the lengths in the header', () => {
    expect(framer().next(hex(POS).subarray(0, 20))).toBeNull();
    const two = Buffer.concat([hex(POS), hex(AUTH)]);
    const f = framer().next(two)!;
    expect(f.frame.toString('hex')).toBe(POS);
    expect(framer().next(two.subarray(f.consumed))!.frame.toString('hex')).toBe(AUTH);
  });

  it('rejects bytes that cannot start a packet and a corrupted header', () => {
    expect(() => framer().next(hex('02000b'))).toThrow(FrameError);
    const bad = hex(POS);
    bad[5] ^= 1;
    expect(() => framer().next(bad)).toThrow(FrameError);
  });
});

describe('egts commands', () => {
  const enc = { deviceId: '865905', now: 0x12345678 * 1000, config: {} };

  it('sends chat text as CT_MSGTO in CP-1251', () => {
    const bytes = protocol.encode!({ type: 'message', attributes: { message: 'Привет' } }, enc);
    expect(bytes.toString('hex')).toBe('0100000b001b00785601e3140078560004043311004078563412000000000100cff0e8e2e5f2fcef');
    expect(protocol.createFramer!().next(bytes)?.consumed).toBe(bytes.length); // a well-formed packet
  });

  it('wraps custom data in a CT_COM raw-data command', () => {
    const bytes = protocol.encode!({ type: 'custom', attributes: { data: 'a1b2' } }, enc);
    expect(bytes.subarray(-6, -2).toString('hex')).toBe('0000a1b2'); // command code 0 (raw data), then the bytes
  });

  it('throws for an unsupported command', () => {
    expect(() => protocol.encode!({ type: 'engineStop', attributes: {} }, enc)).toThrow();
  });
});
