import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/fifotrack.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string | Buffer, c = ctx()) => protocol.decode!(Buffer.isBuffer(s) ? s : Buffer.from(s, 'latin1'), c);
const encode = (type: string, attributes: Record<string, string> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();

describe('fifotrack replies', () => {
  it('confirms an A03 report with its index and the server time', () => {
    const r = decode('$$99,865413050150407,7F,A03,,230626072722,460|0|25FC|AC2AB0B,3.74,52,0019,0,A,0,13,22.643466,114.018211*74');
    expect(r.reply?.toString()).toBe('##36,865413050150407,7F,A03,250222010203*FE\r\n');
  });
  it('asks for a photo part by part and hands over the image when complete', () => {
    const c = ctx();
    const start = decode('$$79,868345037864709,382,D05,190220085833,22.643210,114.018176,1,1,1,6,23FFD339*25', c);
    expect(start.reply?.toString()).toBe('##35,868345037864709,1,D06,23FFD339,0,6*13\r\n');
    const part = (bytes: string) => Buffer.concat([Buffer.from('$$40,868345037864709,1,D06,23FFD339,0,4,'), Buffer.from(bytes, 'hex'), Buffer.from('*00')]);
    const first = decode(part('ffd8ffdb'), c);
    expect(first.reply?.toString()).toBe('##35,868345037864709,1,D06,23FFD339,4,2*13\r\n');
    const last = decode(part('ffd9'), c);
    expect(last.reply).toBeUndefined();
    expect(last.media).toEqual([{ record: 0, attribute: 'image', data: Buffer.from('ffd8ffdbffd9', 'hex'), extension: 'jpg' }]);
  });
  it('sends nothing for older reports and command answers', () => {
    expect(decode('$$95,866104023192332,1,A03,,210414055249,460|0|25FC|104C,4.18,100,000F,0,A,2,9,22.643175,114.018150*75').reply).toBeDefined();
    expect(decode('$$103,866104023179743,5,A00,,161006192841,A,54.738791,25.271918,0,342,200,0,4265,0000,0,,246|1|65|96DB,9C4|0*75').reply).toBeUndefined();
    expect(decode('$$25,863003046473534,1,B03,OK*4D').reply).toBeUndefined();
  });
});

describe('fifotrack decoding', () => {
  it('decodes a report: alarm, km/h, odometer, engine seconds, status, cell, adc, RFID', () => {
    const [r] = decode('$$123,869467049296388,B996,A01,2,190624131813,V,22.333746,113.590670,0,124,-1,26347,5,30000004,00,0,460|0|2694|5A5D,174|0|0|0,B48CEB,*77').records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-06-24T13:18:13.000Z');
    expect(r).toMatchObject({ valid: false, lat: 22.333746, lng: 113.59067, speed: 0, course: 124, altitude: -1, satellites: 3 });
    expect(r.cells).toEqual([{ mcc: 460, mnc: 0, lac: 0x2694, cid: 0x5a5d }]);
    expect(r.attributes).toMatchObject({ alarm: 'sos', odometer: 26347, hours: 5000, adc1: 0x174, driverUniqueId: String(0xb48ceb) });
  });
  it('keeps a command answer as result', () => {
    expect(decode('$$25,863003046473534,1,B03,OK*4D').records![0].attributes.result).toBe('OK');
  });
});

describe('fifotrack framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts at the announced length and skips the CRLF', () => {
    expect(next('$$25,863003046473534,1,B03,OK*4D\r\n$$')).toEqual({ frame: Buffer.from('$$25,863003046473534,1,B03,OK*4D'), consumed: 34 });
    expect(next('$$25,863003046473534,1,B03')).toBeNull();
    expect(() => next('hello world, this is not')).toThrow(FrameError);
  });
});

describe('fifotrack commands', () => {
  it('encodes custom text and the photo request with the byte-sum checksum', () => {
    expect(encode('requestPhoto')).toBe('##24,123456789012345,1,D05,3*9F\r\n');
    expect(encode('custom', { data: 'Y01,1' })).toBe('##24,123456789012345,1,Y01,1*AE\r\n');
    expect(() => encode('engineStop')).toThrow();
  });
});
