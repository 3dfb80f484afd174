import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/jt808/index.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (over: Partial<DecodeContext> = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 2, 3, 4, 5), transport: 'tcp', config: {}, session: {}, ...over });
const hex = (s: string) => Buffer.from(s, 'hex');
const decode = (s: string, c = ctx()) => protocol.decode!(hex(s), c);
const enc = { deviceId: '123456789012345', now: Date.UTC(2025, 0, 2), config: {} };

describe('jt808 replies', () => {
  it('answers registration with 0x8100 carrying serial, result and the auth code', () => {
    const r = decode('7e0100002d0141305678720024002c012f373031313142534a2d41362d424400000000000000000000003035363738373201d4c14238383838386d7e');
    expect(r.deviceId).toBe('014130567872');
    expect(r.records ?? []).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe('7e8100000f0141305678720000002400303134313330353637383732887e');
  });

  it('acknowledges a location report with 0x8001 echoing serial and message id', () => {
    const r = decode('7e0200002e094027587492000a000000010000000a03083db7001329f3000000140000130412164952010400000012360a0002341502cb0c20085c107e');
    expect(r.reply?.toString('hex')).toBe('7e800100050940275874920000000a0200005c7e');
  });

  it('acknowledges a heartbeat and yields no record', () => {
    const r = decode('7e0002000004304832546500b7ca7e');
    expect(r.records ?? []).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe('7e80010005043048325465000000b70002004e7e');
  });

  it('answers 0x5501 with 0x4401 only when the attribute asks for it', () => {
    const r = decode('7e55018c418560090010174701022106242122348476113550490700001c06000000074e0000000000000308100000100102020200000a030000000b0803363839363037650c0600000001000afa7e');
    expect(r.reply?.toString('hex')).toBe('7e4401000385600900101701550100f87e');
  });

  it('echoes a BASE,2 time request with the current UTC time', () => {
    const r = protocol.decode!(Buffer.from('(794104004140,1,001,BASE,2,TIME)'), ctx());
    expect(r.reply?.toString()).toBe('(794104004140,1,001,BASE,2,20250102030405)');
    expect(r.records ?? []).toHaveLength(0);
  });
});

describe('jt808 values', () => {
  it('decodes a fix: sign bits, 0.1 km/h speed and GMT+8 time', () => {
    const [fix] = decode('7e0200002e094027587492000a000000010000000a03083db7001329f3000000140000130412164952010400000012360a0002341502cb0c20085c107e').records!;
    expect(fix.lat).toBeCloseTo(50.871735, 6);
    expect(fix.lng).toBeCloseTo(-1.255923, 6);
    expect(fix.speed).toBeCloseTo(2.0, 6);
    expect(fix.valid).toBe(true);
    expect(fix.time).toBe(Date.UTC(2013, 3, 12, 8, 49, 52));
    expect(fix.attributes.alarm).toBe('sos');
  });

  it('honours a configured terminal time zone', () => {
    const c = ctx({ config: { timezone: 'UTC' } });
    const [fix] = decode('7e0200002e094027587492000a000000010000000a03083db7001329f3000000140000130412164952010400000012360a0002341502cb0c20085c107e', c).records!;
    expect(fix.time).toBe(Date.UTC(2013, 3, 12, 16, 49, 52));
  });

  it('reads external power in volts from item 0x82', () => {
    const [fix] = decode('7e0200003601911111000000d2000000000000004202b71a72008dbba000000000000025070208082901040000000030011731010e5708000000000000000082020082367e').records!;
    expect(fix.attributes.power).toBe(13);
    expect(fix.satellites).toBe(14);
    expect(fix.attributes.sat).toBe(14);
  });

  it('turns a batch 0x0704 into several fixes flagged as archive when blind-spot', () => {
    const r = decode('7e0704014301356777777707f5000801002600000000000000030159741206cbfd5001720000000116052709062401040000001d03020000002600000000000000030159746606cbfd50016b0000000116052709065301040000001d0302000000260000000000000003015975e406cbfe58013f0000000116052709072701040000001d0302000000260000000000000003015976de06cbff10012e0000000116052709075601040000001d0302000000260000000000000003015976bc06cbfed0012d0000000116052709082501040000001d0302000000260000000000000003015977c006cbfdc0012a0000000116052709085401040000001d0302000000260000000000000003015978c006cbfe30012e0000000116052709092401040000001d0302000000260000000000000003015979bc06cbfe0801310000000116052709095401040000001d030200006f7e');
    expect(r.records!.length).toBe(8);
    expect(r.records!.every((x) => x.attributes.archive === true)).toBe(true);
  });

  it('turns a text reply into a result record', () => {
    const [rec] = decode('7e070100150120764632790008000000114d442c53455420434f4e464947204f4b21187e').records!;
    expect(rec.attributes.result).toBe('MD,SET CONFIG OK!');
  });
});

describe('jt808 framer', () => {
  const framer = () => protocol.createFramer!();

  it('un-escapes 7d 01 / 7d 02 and waits for the closing delimiter', () => {
    expect(framer().next(hex('7e307d02087d01'))).toBeNull();
    const f = framer().next(hex('7e307d02087d01557e'))!;
    expect(f.frame.toString('hex')).toBe('7e307e087d557e');
    expect(f.consumed).toBe(9);
  });

  it('cuts several frames out of one chunk one at a time', () => {
    let buf = hex('7e0002000004304832546500b7ca7e7e0002000004304832546500b8c57e');
    const out: string[] = [];
    for (let f = framer().next(buf); f; f = framer().next(buf)) {
      out.push(f.frame.toString('hex'));
      buf = buf.subarray(f.consumed);
    }
    expect(out).toEqual(['7e0002000004304832546500b7ca7e', '7e0002000004304832546500b8c57e']);
  });

  it('skips a short prefix and cuts text frames at the closing parenthesis', () => {
    expect(framer().next(hex('24247e01027e'))!.frame.toString('hex')).toBe('7e01027e');
    expect(framer().next(Buffer.from('(1234,BASE,2,TIME)(x'))!.frame.toString()).toBe('(1234,BASE,2,TIME)');
  });

  it('rejects garbage that never starts a frame, and frames that never end', () => {
    expect(() => framer().next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
    expect(() => framer().next(Buffer.concat([hex('7e'), Buffer.alloc(5000, 0x41)]))).toThrow(FrameError);
  });
});

describe('jt808 commands', () => {
  it('sends chat text as 0x8300 in GBK', () => {
    const bytes = protocol.encode!({ type: 'message', attributes: { message: 'Hi 中' } }, enc);
    expect(bytes.toString('hex')).toBe('7e830000060b3a73ce2ff200000c486920d6d0df7e');
  });

  it('passes a custom hex frame through unchanged', () => {
    const data = '7e830000140b3a73ce2ff2000001546573742c20436f6d6d616e642c2031323323a57e';
    expect(protocol.encode!({ type: 'custom', attributes: { data } }, enc).toString('hex')).toBe(data);
  });

  it('resets the terminal with 0x8105 command word 4', () => {
    expect(protocol.encode!({ type: 'rebootDevice', attributes: {} }, enc).toString('hex')).toBe('7e810500010b3a73ce2ff2000004d07e');
  });

  it('throws for an unsupported command', () => {
    expect(() => protocol.encode!({ type: 'nope', attributes: {} }, enc)).toThrow();
  });
});
