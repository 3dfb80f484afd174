import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/arnavi.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3); // 0x67b9220b
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

const PACKAGE = '5b01012800a3175f5903513934420447221c42055402781e0900f0c5215b4e0084005c00007c005d0000a300fa37010000295d';
const CAN =
  '5bae0196008a52a9690373f35c42049746ac420574147529973e00000007ca325cb061ca3200000863fa001e96e553fe006353801a0201b50f5d6c0601010000474e0000005b4e0000005c000017005d000017003203000000330040110034d83b05003579b7200136700e090037c301000039ce0300003a4c0000003b4e0000003c8a0101003db8ab0000404c010000be1e4b00c045002d0000fa3b010000d75d';

describe('arnavi replies', () => {
  it('answers a version 1 header with 7B 00 00 7D', () => {
    const r = decodeHex('ff22f30c45f5c90f0300');
    expect(r.deviceId).toBe('861785007918323');
    expect(r.reply?.toString('hex')).toBe('7b00007d');
  });
  it('answers version 2 and 3 headers with the server time and its checksum', () => {
    expect(decodeHex('ff23f30c45f5c90f0300').reply?.toString('hex')).toBe('7b04004d0b22b9677d');
    expect(decodeHex('ff24f30c45f5c90f03000102030405060708').reply?.toString('hex')).toBe('7b04004d0b22b9677d');
  });
  it('confirms a package with its number', () => {
    expect(decodeHex(PACKAGE).reply?.toString('hex')).toBe('7b00017d');
    expect(decodeHex(CAN).reply?.toString('hex')).toBe('7b00ae7d');
  });
});

describe('arnavi decoding', () => {
  it('decodes the tags of a data record', () => {
    const [r] = decodeHex(PACKAGE).records!;
    expect(new Date(r.time!).toISOString()).toBe('2017-07-07T05:09:55.000Z');
    expect(r.lat).toBeCloseTo(45.05597, 5);
    expect(r.lng).toBeCloseTo(39.03347, 5);
    expect(r).toMatchObject({ valid: true, satellites: 15, course: 168, altitude: 20, speed: 30 * 1.852 });
    expect(r.attributes).toMatchObject({ status: 0x21c5f000, input: 0, output: 0, motion: true });
  });
  it('decodes CAN values: engine hours, odometer, rpm, hdop', () => {
    const [r] = decodeHex(CAN).records!;
    expect(r.attributes).toMatchObject({ hours: 12348000000, odometer: 189213370, rpm: 974 });
  });
  it('decodes the text format', () => {
    const { deviceId, records } = protocol.decode!(
      Buffer.from('$AV,V4,999999,12487,2277,203,65534,0,0,193,65535,65535,65535,65535,1,13,80.0,56.1,200741,5950.6773N,03029.1043E,300.0,360.0,121012,65535,65535,65535,SF*6E'),
      ctx(),
    );
    expect(deviceId).toBe('999999');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2012-10-12T20:07:41.000Z');
    expect(r).toMatchObject({ valid: true, satellites: 13, altitude: 80, attributes: { power: 22.77, battery: 2.03, index: 12487, input: 193, ignition: false } });
    expect(r.lat).toBeCloseTo(59 + 50.6773 / 60, 6);
  });
});

describe('arnavi framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts headers, packages by their record lengths, results and text lines', () => {
    expect(next('ff22f30c45f5c90f0300' + '5b')?.consumed).toBe(10);
    expect(next(PACKAGE + PACKAGE)?.frame.toString('hex')).toBe(PACKAGE);
    expect(next(PACKAGE.slice(0, 60))).toBeNull();
    expect(next('5bfd005d5b')?.frame.toString('hex')).toBe('5bfd005d');
    expect(next(Buffer.from('$AV,V2,1*6E\r\n$AV').toString('hex'))).toEqual({ frame: Buffer.from('$AV,V2,1*6E'), consumed: 13 });
  });
  it('rejects bytes that start no packet', () => {
    expect(() => next('00000000')).toThrow(FrameError);
  });
});
