import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/navis/index.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => Buffer.from(h, 'hex');

// The handshake and FLEX negotiation below, and their answers, are the examples of the vendor's
// developer wiki (wiki.navtelecom.ru, "FLEX examples").
const HANDSHAKE = '404e544301000000000000001300464d2a3e533a383636373935303333333233383634';
const NEGOTIATION_30 = '404e544301000000000000002a0046742a3e464c4558b01e1efffffe300a08000000020000000020003800200000000000000104000000060000';
const NEGOTIATION_10 = '404e544301000000aaecf6021300c8712a3e464c4558b00a0a45ffff300a08080f8388';
const FLEX_T = '7e54040000000400000030129957405c000b00632f9857405ccace03021e129101a103000000000000c4005ba3fe3b00000000120046100000000000001aff7f000080bfffff80000080bfffffffff9f';
const FLEX_A = '7e4101080000000917c057405c002b001833c057405cbbce030225129101a00300007c6102408900400c1b3cfce3b23a12004710e000000000001bff7f000080bfffff80000080bfffffffffb2';
const NTCB_T = '404e544301000000cdfbf5027200852e2a3e5406aa170000c11116162410001310a9110e80996b281003000a0008000000000000000000d207d207ffffff00fbff00fbff00fbff00fbff00fbff00fbff00fbff2d808080ffffffffffff2b161624100013509b0302b0f89201830500000000000037002fb8cf43eed5843a35003500';
const NTCB_A = '404e544300000000040000005a00c6812a3e410125e3a60700011705071503011030210c0000fa200910e6000000000000000000000001082106150010ae97643f88a39f3f0000000090001fcc6c450000000000000000000000000000000000000000000000f6808080';

describe('navis replies', () => {
  it('answers the handshake with *<S, receiver and sender swapped', () => {
    const r = protocol.decode!(hex(HANDSHAKE), ctx());
    expect(r.deviceId).toBe('866795033323864');
    expect(r.reply?.toString('hex')).toBe('404e544300000000010000000300455e2a3c53');
  });
  it('confirms a FLEX negotiation with the versions it asked for', () => {
    expect(protocol.decode!(hex(NEGOTIATION_30), ctx()).reply?.toString('hex')).toBe('404e544300000000010000000900b1a02a3c464c4558b01e1e');
  });
  it('answers a FLEX ~T with its event index and ~A with its record count, each with a CRC-8', () => {
    const c = ctx();
    protocol.decode!(hex(NEGOTIATION_10), c);
    // 7e 54 04000000 | CRC-8 (poly 0x31, init 0xff) of the four bytes before it
    expect(protocol.decode!(hex(FLEX_T), c).reply?.toString('hex')).toBe('7e540400000017');
    expect(protocol.decode!(hex(FLEX_A), c).reply?.toString('hex')).toBe('7e4101df');
  });
  it('answers NTCB *>T with *<T and the record index, *>A with *<A and the count', () => {
    expect(protocol.decode!(hex(NTCB_T), ctx()).reply?.toString('hex')).toBe('404e5443cdfbf502010000000700ff212a3c54aa170000');
    expect(protocol.decode!(hex(NTCB_A), ctx()).reply?.toString('hex')).toBe('404e544304000000000000000400564f2a3c4101');
  });
  it('does not answer a keep-alive', () => {
    expect(protocol.decode!(hex('7f'), ctx()).reply).toBeUndefined();
  });
});

describe('navis decoding', () => {
  it('reads the FLEX fields the negotiation enabled', () => {
    const c = ctx();
    protocol.decode!(hex(NEGOTIATION_10), c);
    const [r] = protocol.decode!(hex(FLEX_T), c).records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-01-17T10:23:20.000Z');
    expect(r).toMatchObject({ valid: true, satellites: 11, altitude: 92.9, course: 196, attributes: { index: 4, battery: 4.166, temp1: 26 } });
    expect(r.lat).toBeCloseTo(56.33996, 5);
    expect(r.attributes.rpm).toBeUndefined(); // 0xffff: not available
  });
  it('reads NTCB F6.0 records', () => {
    const [r] = protocol.decode!(hex(NTCB_T), ctx()).records!;
    expect(r).toMatchObject({ valid: true, satellites: 10, altitude: 141.1, attributes: { power: 27.545, battery: 4.136, temp1: 45, armed: false } });
  });
  it('refuses FLEX data before a negotiation and frames with a bad checksum', () => {
    expect(() => protocol.decode!(hex(FLEX_T), ctx())).toThrow(/negotiation/);
    expect(() => protocol.decode!(hex(HANDSHAKE.slice(0, -2) + '30'), ctx())).toThrow(/checksum/);
  });
  it('passes the answer to a command on as its result', () => {
    const r = protocol.decode!(hex('404e544301000000000000000d005e4b2a40434e43545f445243204f4b'), ctx());
    expect(r.records).toEqual([{ attributes: { result: '*@CNCT_DRC OK' } }]);
  });
});

describe('navis framer and encoder', () => {
  it('learns the FLEX record size from the negotiation it cuts', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex(NEGOTIATION_10 + '7f'))?.consumed).toBe(NEGOTIATION_10.length / 2);
    expect(f.next(hex('7f'))).toEqual({ frame: hex('7f'), consumed: 1 });
    expect(f.next(hex(FLEX_T + FLEX_A))?.frame.toString('hex')).toBe(FLEX_T);
    expect(f.next(hex(FLEX_A.slice(0, 40)))).toBeNull();
  });
  it('rejects bytes that start no frame', () => {
    expect(() => protocol.createFramer!().next(hex('00112233'))).toThrow(FrameError);
  });
  it('sends a command as NTCB text', () => {
    const b = protocol.encode!({ type: 'custom', attributes: { data: '*!SETOUT 1Y' } }, { deviceId: '1', now: 0, config: {} });
    expect(b.toString('hex')).toBe('404e544300000000010000000b004f5c2a215345544f5554203159');
    expect(() => protocol.encode!({ type: 'engineStop', attributes: {} }, { deviceId: '1', now: 0, config: {} })).toThrow();
  });
});
