import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/watch.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2024, 0, 1);
const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: NOW, transport: 'tcp', config, session: {} });
const decode = (text: string | Buffer, c = ctx()) => protocol.decode!(typeof text === 'string' ? Buffer.from(text, 'latin1') : text, c);
const reply = (text: string) => decode(text).reply?.toString('latin1');

describe('watch replies', () => {
  it('answers link, alarm, init and TKQ with the maker, id and index of the frame', () => {
    expect(reply('[SG*8800000015*0002*LK]')).toBe('[SG*8800000015*0002*LK]');
    expect(reply('[3G*4700186508*000B*LK,0,10,100]')).toBe('[3G*4700186508*0002*LK]');
    expect(reply('[ZJ*014111001350304*0034*0009*LK,0,0,19]')).toBe('[ZJ*014111001350304*0034*0002*LK]');
    expect(reply('[SG*9051004074*0058*AL,120117,145602,V,40.058413,N,76.336618,W,11.519,188,99,00,01,80,0,50,00000000,0,1,0,0,,10]')).toBe('[SG*9051004074*0002*AL]');
    expect(reply('[3G*1*0004*INIT]')).toBe('[3G*1*0006*INIT,1]');
    expect(reply('[3G*8800000015*0003*TKQ]')).toBe('[3G*8800000015*0003*TKQ]');
  });

  it('sends nothing back for plain position reports', () => {
    expect(reply('[SG*9059056143*0053*UD,251021,223408,A,41.46500,N,081.53128,W,0.926,000,0,00,70,70,0,50,00000000,0,1,,,,00]')).toBeUndefined();
  });

  it('acknowledges each voice part and returns the note as data once complete', () => {
    const c = ctx({});
    const part = (n: number, data: string) => decode(`[ZJ*7*0034*0000*JXTK,0,watch_7,${n},2,${data}]`, c);
    const first = part(1, 'ab');
    expect(first.reply?.toString()).toBe('[ZJ*7*0034*0007*JXTKR,1]');
    expect(first.records).toBeUndefined();
    expect(first.media).toBeUndefined();
    const last = part(2, 'cd');
    // The decoder does no I/O: the record's attribute is left for the gateway to name the file.
    expect(last.records).toEqual([{ time: NOW, attributes: { audio: '' } }]);
    expect(last.media).toEqual([{ record: 0, attribute: 'audio', data: Buffer.from('abcd'), extension: 'amr' }]);
    expect(c.session.audio).toBeUndefined();
  });

  it('returns a whole voice note and a photo as data', () => {
    const voice = decode('[3G*1*0008*TK,#!AMR\x01\x02]');
    expect(voice.reply?.toString()).toBe('[3G*1*0004*TK,1]');
    expect(voice.media).toEqual([{ record: 0, attribute: 'audio', data: Buffer.from('#!AMR\x01\x02', 'latin1'), extension: 'amr' }]);
    const photo = decode('[3G*1*0016*img,1,240101120000,\xff\xd8\xff]');
    expect(photo.records).toEqual([{ time: NOW, attributes: { image: '' } }]);
    expect(photo.media).toEqual([{ record: 0, attribute: 'image', data: Buffer.from([0xff, 0xd8, 0xff]), extension: 'jpg' }]);
  });
});

describe('watch values', () => {
  it('decodes a fix: degrees with hemisphere, km/h, battery, steps, cells', () => {
    const [r] = decode('[3G*8308373902*0080*AL,230817,095346,A,47.083950,S,15.4821850,W,7.60,273.8,12.5,4,15,44,120,0,00200010,2,255,232,1,7605,42530,118,7605,58036,119,0,65.8]').records!;
    expect(r).toMatchObject({ time: Date.UTC(2017, 7, 23, 9, 53, 46), valid: true, lat: -47.08395, lng: -15.482185, speed: 7.6, course: 273.8, altitude: 12.5, satellites: 4 });
    expect(r.attributes).toMatchObject({ rssi: 15, batteryLevel: 44, steps: 120, alarm: 'fallDown', motion: true });
    expect(r.cells).toEqual([
      { mcc: 232, mnc: 1, lac: 7605, cid: 42530, rssi: 118 },
      { mcc: 232, mnc: 1, lac: 7605, cid: 58036, rssi: 119 },
    ]);
  });

  it('reads hex cell ids and keeps a signed coordinate without hemisphere', () => {
    const [r] = decode('[SG*9059011020*0067*UD,240123,181628,V,-54.427538,N,6.409275,,0.00,0,0,0,19,90,0,0,00000000,1,1,234,10,55C0,3B882A2,132,,10]').records!;
    expect(r.lat).toBe(-54.427538);
    expect(r.lng).toBe(6.409275);
    expect(r.cells).toEqual([{ mcc: 234, mnc: 10, lac: 0x55c0, cid: 0x3b882a2, rssi: 132 }]);
  });

  it('decodes health readings as status records', () => {
    expect(decode('[3G*1*0000*bphrt,120,79,73,,,,]').records).toEqual([{ time: NOW, attributes: { pressureHigh: 120, pressureLow: 79, heartRate: 73 } }]);
    expect(decode('[3G*1*0000*oxygen,0,98]').records![0].attributes).toEqual({ bloodOxygen: 98 });
    expect(decode('[ZJ*1*0001*0009*TEMP,36.5]').records![0].attributes).toEqual({ temp1: 36.5 });
  });

  it('turns a command confirmation into a result record', () => {
    expect(decode('[3G*1*0006*UPLOAD]').records![0].attributes).toEqual({ result: 'UPLOAD' });
  });

  it('rejects malformed frames with DecodeError', () => {
    expect(() => decode('[3G*1*00XX*LK]')).toThrow(DecodeError);
    expect(() => decode('[3G*1*0010*UD,999999,000000,A,1,N,1,E]')).toThrow(DecodeError);
    expect(() => decode('3G*1*0002*LK')).toThrow(DecodeError);
  });
});

describe('watch framer', () => {
  const framer = () => protocol.createFramer!();

  it('cuts the first frame, nested brackets included, and waits for more', () => {
    expect(framer().next(Buffer.from('[3G*1*0002*LK'))).toBeNull();
    const f = framer().next(Buffer.from('[3G*1*0010*UD,x,[a]b][3G*1*0002*LK]'))!;
    expect(f.frame.toString()).toBe('[3G*1*0010*UD,x,[a]b]');
    expect(f.consumed).toBe(21);
  });

  it('removes the } escapes of binary content', () => {
    const f = framer().next(Buffer.from([...Buffer.from('[CS*1*0006*TK,'), 0x7d, 0x01, 0x7d, 0x02, 0x7d, 0x03, 0x5d]))!;
    expect(f.frame).toEqual(Buffer.from('[CS*1*0006*TK,}[]]'));
  });

  it('rejects garbage, bad escapes and endless frames', () => {
    expect(() => framer().next(Buffer.from('xyz'))).toThrow(FrameError);
    expect(() => framer().next(Buffer.from([0x5b, 0x7d, 0x09, 0x5d]))).toThrow(FrameError);
    expect(() => framer().next(Buffer.concat([Buffer.from('['), Buffer.alloc(protocol.maxFrameSize + 1, 0x41)]))).toThrow(FrameError);
  });
});

describe('watch commands', () => {
  const enc = (type: string, attributes: Record<string, string | number | boolean>, config: Record<string, unknown> = {}) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: Date.UTC(2025, 0, 15), config }).toString('latin1');

  it('sends chat text as UTF-16BE hex', () => {
    expect(enc('message', { message: 'Hé' })).toBe('[CS*123456789012345*0010*MESSAGE,004800e9]');
  });

  it('sends custom text as is', () => {
    expect(enc('custom', { data: 'UPLOAD,60' })).toBe('[CS*123456789012345*0009*UPLOAD,60]');
  });

  it('escapes voice data and counts the bytes as sent', () => {
    expect(enc('voiceMessage', { data: '7d5b5d2c2a' })).toBe('[CS*123456789012345*000d*TK,}\x01}\x02}\x03}\x04}\x05]');
  });

  it('uses the standard offset of a zone and the maker/index of the connection', () => {
    expect(enc('setTimezone', { timezone: 'America/New_York' })).toBe('[CS*123456789012345*0006*LZ,,-5]');
    expect(enc('rebootDevice', {}, { manufacturer: '3G', hasIndex: true })).toBe('[SG*123456789012345*0001*0005*RESET]');
  });

  it('refuses unknown commands', () => {
    expect(() => enc('engineStop', {})).toThrow();
  });
});
