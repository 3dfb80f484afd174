import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/h02.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (config = {}): DecodeContext => ({ now: NOW, transport: 'tcp', config, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const decodeHex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const encode = (type: string, attributes: Record<string, string | number> = {}, config = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: NOW, config }).toString();

const SHORT = '2441060116601245431311165035313006004318210e000000fffffbffff0024';
const LONG = '24410600082621532131081504419390060740418306000000fffffbfdff0015060000002c02dc0c000000001f';

describe('h02 replies', () => {
  it('confirms V1 with V4,V1 and the server time', () => {
    const r = decode('*HQ,4210051415,V1,164549,A,0956.3869,N,08406.7068,W,000.00,000,221215,FFFFFBFF,712,01,0,0,6#');
    expect(r.reply?.toString()).toBe('*HQ,4210051415,V4,V1,20250222010203#');
  });
  it('echoes a heartbeat and confirms NBR', () => {
    expect(decode('*HQ,135790246811220,HTBT#').reply?.toString()).toBe('*HQ,135790246811220,HTBT#');
    const nbr = decode('*HQ,1451316451,NBR,112315,724,10,2,2,215,2135,123,215,2131,121,011215,FFFFFFFF#');
    expect(nbr.reply?.toString()).toBe('*HQ,1451316451,V4,NBR,20250222010203#');
  });
  it('acknowledges binary reports with R12 only when configured', () => {
    expect(decodeHex(SHORT).reply).toBeUndefined();
    expect(decodeHex(SHORT, ctx({ ack: true })).reply?.toString()).toBe('*HQ,4106011660,R12,010203#');
  });
});

describe('h02 decoding', () => {
  it('decodes a V1 fix: knots to km/h, active-low status', () => {
    const [r] = decode('*HQ,1451316409,V1,030149,A,-23-29.0095,S,-46-51.5852,W,2.4,065,070315,FFFFFFFF#').records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-03-07T03:01:49.000Z');
    expect(r.lat).toBeCloseTo(-23.48349, 5);
    expect(r.lng).toBeCloseTo(-46.85975, 5);
    expect(r.speed).toBeCloseTo(2.4 * 1.852, 6);
    expect(r.course).toBe(65);
    expect(r.attributes).toMatchObject({ status: 0xffffffff, ignition: true });
    expect(r.attributes.alarm).toBeUndefined();
  });
  it('reads a cleared status bit as an alarm', () => {
    const [r] = decode('*HQ,4109179024,V1,103732,A,3853.2770,S,06205.8678,W,000.00,000,100217,FFFFFBFD#').records!;
    expect(r.attributes.alarm).toBe('sos');
  });
  it('decodes a binary frame (BCD coordinates, battery byte)', () => {
    const { deviceId, records } = decodeHex(LONG);
    expect(deviceId).toBe('4106000826');
    expect(new Date(records![0].time!).toISOString()).toBe('2015-08-31T21:53:21.000Z');
    expect(records![0].lat).toBeCloseTo(4.69898, 5);
    expect(records![0].lng).toBeCloseTo(-74.069717, 5);
    expect(records![0].attributes.batteryLevel).toBe(100);
  });
  it('keeps a V4 command reply as result', () => {
    const [r] = decode('*TH,2020916012,V4,S20,DONE,130305,050316,A,2212.8745,N,11346.6574,E,14.28,028,220902,F7FFFBFF#').records!;
    expect(r.attributes.result).toBe('S20,DONE,130305');
  });
  it('decodes NBR cells and LINK status', () => {
    const [n] = decode('*HQ,1451316451,NBR,112315,724,10,2,2,215,2135,123,215,2131,121,011215,FFFFFFFF#').records!;
    expect(n.cells).toEqual([
      { mcc: 724, mnc: 10, lac: 215, cid: 2135, rssi: 123 },
      { mcc: 724, mnc: 10, lac: 215, cid: 2131, rssi: 121 },
    ]);
    const [l] = decode('*HQ,1600068860,LINK,112137,20,8,67,0,0,081116,FFFFFBFF#').records!;
    expect(l).toMatchObject({ satellites: 8, attributes: { rssi: 20, batteryLevel: 67, steps: 0 } });
  });
  it('turns SMS text into a result record', () => {
    expect(decode('*HQ,5226073533,SMS,VOLT:12.9V\nGSM:26#').records![0].attributes.result).toBe('VOLT:12.9V\nGSM:26');
  });
});

describe('h02 framer', () => {
  const next = (hex: string, config?: Record<string, unknown>) => protocol.createFramer!(config).next(Buffer.from(hex, 'hex'));
  const txt = (s: string) => Buffer.from(s, 'latin1').toString('hex');
  it('cuts text at # and skips the line break', () => {
    const r = next(txt('*HQ,1,V1,#\r\n*HQ,2'));
    expect(r).toEqual({ frame: Buffer.from('*HQ,1,V1,#'), consumed: 12 });
  });
  it('tells 32-byte from 45-byte binary frames by what follows', () => {
    expect(next(SHORT)?.frame.length).toBe(32);
    expect(next(SHORT + txt('*HQ,1#'))?.frame.length).toBe(32);
    expect(next(LONG)?.frame.length).toBe(45);
    expect(next(LONG + LONG)?.frame.length).toBe(45);
    expect(next(SHORT.slice(0, 40))).toBeNull();
    expect(next(LONG.slice(0, 70))).toBeNull();
  });
  it('learns the long length for the connection, or takes it from the config', () => {
    const framer = protocol.createFramer!();
    const stream = Buffer.from(LONG + LONG, 'hex');
    expect(framer.next(stream)?.frame.length).toBe(45);
    expect(framer.next(stream.subarray(45, 45 + 32))).toBeNull(); // would be a complete short frame otherwise
    expect(next(LONG.slice(0, 64), { messageLength: 45 })).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('00'.repeat(3000))).toThrow(FrameError);
    expect(() => next(txt(`*HQ,${'1'.repeat(3000)}`))).toThrow(FrameError);
  });
});

describe('h02 commands', () => {
  it('embeds the command time from now', () => {
    expect(encode('engineStop')).toBe('*HQ,123456789012345,S20,010203,1,1#');
    expect(encode('positionPeriodic', { frequency: 30 })).toBe('*HQ,123456789012345,S71,010203,22,30#');
    expect(encode('positionPeriodic', { frequency: 30 }, { alternative: true })).toBe('*HQ,123456789012345,D1,010203,30#');
  });
  it('encodes custom commands with the time inserted, or verbatim', () => {
    expect(encode('custom', { data: 'S71,22,60' })).toBe('*HQ,123456789012345,S71,010203,22,60#');
    expect(encode('custom', { data: '*HQ,123456789012345,R1,010203#' })).toBe('*HQ,123456789012345,R1,010203#');
  });
  it('refuses unknown commands', () => {
    expect(() => encode('message', { message: 'hi' })).toThrow();
  });
});
