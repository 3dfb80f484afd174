import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/atrack/index.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config, session: {} });
const hex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const text = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

const BINARY = '40501e58003301e000014104d8f19682525ecd5d525ee344525ee35effc88815026ab4d70000020000104403de01000b0000000007d007d000';
const TEXT = '@P,CA4B,122,1,358683064932578,1533633976,1533633975,1533633975,121562641,25082649,72,0,1638,15,0,0,1,0,,2000,2000,\x1a,%CI%MV%BV,143,0\r\n';
const KEEPALIVE = 'fe0200014104d8f196820001';
// binary custom report: form %CI%SA%MV%BV%GQ%AT, two records
const CUSTOM = '405025e30096eb730001452efaf6a7d6562fe4f8562fe4f7562fe52c02a006d902273f810064650000e0f5000a0100000000000007d007d000254349255341254d5625425625475125415400090083002a1a000001a8562fe4f8562fe4f7562fe52c02a006d902273f810064020000e0f5000a0100000000000007d007d000254349255341254d5625425625475125415400090083002a1a000001a8';

describe('atrack replies', () => {
  it('acknowledges a binary report with FE 02, the unit id and the sequence', () => {
    const r = hex(BINARY);
    expect(r.deviceId).toBe('352964052096642');
    expect(r.reply?.toString('hex')).toBe('fe0200014104d8f1968201e0');
  });
  it('acknowledges a text report the same way, the IMEI as the unit id', () => {
    // 358683064932578 = 0x0001463868ac18e2, sequence 1
    expect(text(TEXT).reply?.toString('hex')).toBe('fe020001463868ac18e20001');
  });
  it('echoes a keep-alive', () => {
    const r = hex(KEEPALIVE);
    expect(r.deviceId).toBe('352964052096642');
    expect(r.records).toBeUndefined();
    expect(r.reply?.toString('hex')).toBe(KEEPALIVE);
  });
  it('answers nothing to command answers', () => {
    const r = text('$OK\r\n');
    expect(r.reply).toBeUndefined();
    expect(r.records![0].attributes.result).toBe('OK');
  });
});

describe('atrack decoding', () => {
  it('reads a binary record: 1e-6 degree, 0.1 km odometer, 0.1 HDOP', () => {
    const [f] = hex(BINARY).records!;
    expect(new Date(f.time!).toISOString()).toBe('2013-10-16T17:31:09.000Z');
    expect(f).toMatchObject({ lat: 40.547543, lng: -3.635179, speed: 11, hdop: 99, attributes: { odometer: 416400, input: 1 } });
    expect(f.attributes.temp1).toBeUndefined(); // 2000 = no sensor
  });
  it('reads the custom fields of a binary form, record after record', () => {
    const rs = hex(CUSTOM, ctx({ custom: true })).records!;
    expect(rs).toHaveLength(2);
    expect(rs[1]).toMatchObject({ satellites: 9, altitude: 424, attributes: { power: 13.1, battery: 4.2, rssi: 26 } });
  });
  it('reads long dates and text reports with their form', () => {
    const [l] = hex('0203b494003c00eb00014104d8dd3a3e07de011b0b1f0307de011b0b1f0307de011b0b1f0300307f28030574d30000020000000600160100020000000007d007d000', ctx({ longDate: true })).records!;
    expect(new Date(l.time!).toISOString()).toBe('2014-01-27T11:31:03.000Z');
    const [t] = text(TEXT).records!;
    expect(t).toMatchObject({ lat: 25.082649, lng: 121.562641, course: 72, attributes: { power: 14.3, battery: 0, output: 1 } });
  });
  it('reads a configured text form', () => {
    const s = '@P,7E02,186,0,357766091026083,1558908265,1558908266,1558908266,-121900220,37407524,175,2,6,6,1,39,0,0,,2000,2000, ,3,40,142,12,JN8AZ1MU1BW066090,0,30\r\n';
    const [t] = text(s, ctx({ form: '%AT%BV%MV%SA%VN%PD%IA' })).records!;
    expect(t).toMatchObject({ altitude: 3, satellites: 12, attributes: { battery: 4, power: 14.2, vin: 'JN8AZ1MU1BW066090', intakeTemp: 30 } });
  });
  it('refuses truncated binary frames', () => {
    expect(() => hex(BINARY.slice(0, 40))).toThrow(DecodeError);
  });
});

describe('atrack framer', () => {
  const next = (b: Buffer) => protocol.createFramer!().next(b);
  it('cuts binary frames by length, text frames at the CR LF after their length, keep-alives at 12 bytes', () => {
    expect(next(Buffer.from(BINARY + KEEPALIVE, 'hex'))?.frame.toString('hex')).toBe(BINARY);
    expect(next(Buffer.from(KEEPALIVE + BINARY, 'hex'))?.consumed).toBe(12);
    // two records on two lines: the length field (bytes after its comma) reaches past the inner CR LF
    const body = '1,358683064932578,1533633976,1533633975,1533633975,121562641,25082649,72,0,1638,15,0,0,1,0,,2000,2000,\r\n1533633977,1533633976,1533633976,121562641,25082649,72,0,1638,15,0,0,1,0,,2000,2000,\r\n';
    const frame = `@P,CA4B,${body.length},${body}`;
    expect(next(Buffer.from(`${frame}$OK\r\n`, 'latin1'))?.frame.toString('latin1')).toBe(frame);
    expect(text(frame).records).toHaveLength(2);
    expect(next(Buffer.from('$OK\r', 'latin1'))).toBeNull();
  });
  it('rejects bytes that start no frame', () => {
    expect(() => next(Buffer.from('0102030405', 'hex'))).toThrow(FrameError);
  });
});

describe('atrack commands', () => {
  it('sends AT commands as text lines', () => {
    expect(protocol.encode!({ type: 'custom', attributes: { data: 'AT$INFO=?' } }, { deviceId: '1', now: 0, config: {} }).toString()).toBe('AT$INFO=?\r\n');
  });
});
