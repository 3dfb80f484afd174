import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/meitrack.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.now(), transport: 'tcp', config, session: {} });
const text = (s: string) => Buffer.from(s, 'latin1');
/** A well-formed message: length from the comma after it through CR LF, checksum = low byte of the byte sum. */
function message(start: string, flag: string, body: string): string {
  const head = `${start}${flag}${body.length + 6},${body}*`;
  let sum = 0;
  for (const c of head) sum += c.charCodeAt(0);
  return `${head}${(sum & 0xff).toString(16).toUpperCase().padStart(2, '0')}\r\n`;
}
const AAA = message('$$', 'A', '79007001520234,AAA,35,40.996370,-8.575065,150730184834,A,8,24,0,1,1.3,173,32573389,31405012,268|3|2BC0|250B,2000,|||0A2D|0000,00000001,,50,,,,,,,,,,,,,');
const CCC = Buffer.from(
  '24245838362c3336393830303031343039303032312c4343432c020134000100000023381f91ffe354b806c5e3121b0009130000000000000000d33801007cbf0200fe0101000435feeb02000500a3010000000000002a62650d0a',
  'hex',
);

describe('meitrack framer', () => {
  it('cuts frames by the length field, across chunks and several per chunk', () => {
    const framer = protocol.createFramer!();
    const frame = text(AAA);
    expect(framer.next(frame.subarray(0, 20))).toBeNull();
    const two = Buffer.concat([frame, frame]);
    const first = framer.next(two)!;
    expect(first.consumed).toBe(frame.length);
    expect(first.frame.toString('latin1')).toBe(AAA);
    expect(framer.next(two.subarray(first.consumed))!.frame.toString('latin1')).toBe(AAA);
  });

  it('rejects garbage', () => {
    expect(() => protocol.createFramer!().next(text('GET / HTTP/1.1\r\n'))).toThrow(FrameError);
    expect(() => protocol.createFramer!().next(text('$$Axx,123'))).toThrow(FrameError);
  });
});

describe('meitrack decoder', () => {
  it('decodes an AAA report: position, km/h speed, volts, cell', () => {
    const r = protocol.decode!(text('$$D149,867047043162018,AAA,35,-1.264865,36.800705,211001105240,A,9,20,41.0,323,1,1697,1,0,000|00||,0000,4.33|12.96|1.92|2.72|2.69,0.000000|0|0.000000,*E1'), ctx());
    expect(r.deviceId).toBe('867047043162018');
    const [rec] = r.records!;
    expect(rec).toMatchObject({ lat: -1.264865, lng: 36.800705, speed: 41, course: 323, altitude: 1697, satellites: 9, valid: true });
    expect(rec.time).toBe(Date.UTC(2021, 9, 1, 10, 52, 40));
    expect(rec.attributes).toMatchObject({ event: 35, battery: 4.33, power: 12.96 });
    expect(r.reply).toBeUndefined();
  });

  it('scales hex analog values in hundredths of a volt by default and maps alarms', () => {
    const r = protocol.decode!(text(AAA.replace('AAA,35', 'AAA,1')), ctx());
    const rec = r.records![0];
    expect(rec.attributes.alarm).toBe('sos');
    expect(rec.attributes.battery).toBeCloseTo(26.05);
    expect(rec.cells).toEqual([{ mcc: 268, mnc: 3, lac: 0x2bc0, cid: 0x250b, rssi: 24 }]);
  });

  it('acknowledges a CCC batch with the record count', () => {
    const r = protocol.decode!(CCC, ctx());
    expect(r.records).toHaveLength(1);
    const [rec] = r.records!;
    expect(rec.lat).toBeCloseTo(-7.266504, 6);
    expect(rec.lng).toBeCloseTo(112.743651, 6);
    expect(rec.time).toBe(Date.UTC(2014, 4, 24, 4, 59, 49));
    expect(r.reply!.toString('latin1')).toBe('@@X27,369800014090021,CCC,1*E4\r\n');
  });

  it('answers the AAC handshake and starts a photo upload on D03', () => {
    expect(protocol.decode!(text('$$z27,861451040910625,AAC,1*D3'), ctx()).reply!.toString('latin1')).toBe(message('@@', 'z', '861451040910625,AAC,1'));
    const photo = protocol.decode!(text('$$D28,353358017784062,D03,OK*F3'), ctx());
    expect(photo.records ?? []).toHaveLength(0);
    expect(photo.reply!.toString('latin1')).toMatch(/^@@O\d+,353358017784062,D00,camera_picture\.jpg,0\*[0-9A-F]{2}\r\n$/);
  });

  it('turns command replies into result records', () => {
    const r = protocol.decode!(text('$$M28,353358017784062,C01,OK*F9\r\n'), ctx());
    expect(r.records).toEqual([{ attributes: { result: 'C01,OK' } }]);
  });
});

describe('meitrack encoder', () => {
  const ectx = { deviceId: '353358017784062', now: 0, config: {} };
  it('frames commands with length and checksum', () => {
    expect(protocol.encode!({ type: 'engineStop', attributes: {} }, ectx).toString('latin1')).toBe(message('@@', 'A', '353358017784062,C01,0,12222'));
    expect(protocol.encode!({ type: 'custom', attributes: { data: 'A11,10' } }, ectx).toString('latin1')).toBe(message('@@', 'A', '353358017784062,A11,10'));
  });
  it('rejects unsupported commands', () => {
    expect(() => protocol.encode!({ type: 'message', attributes: { message: 'hi' } }, ectx)).toThrow();
  });
});
