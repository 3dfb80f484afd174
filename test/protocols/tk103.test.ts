import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tk103.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s), c);
const encode = (type: string, attributes: Record<string, string | number | boolean> = {}, config = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config }).toString();

describe('tk103 replies', () => {
  it('answers the BP00 handshake with AP01HSO and records nothing', () => {
    const r = decode('(087073005534BP00HSO)');
    expect(r.reply?.toString()).toBe('(087073005534AP01HSO)');
    expect(r.deviceId).toBe('087073005534');
    expect(r.records).toBeUndefined();
  });
  it('answers the BP05 login with AP05 and decodes its fix', () => {
    const r = decode('(088047365460BP05354188047365460150929A3258.1754S02755.4323E009.4193927301.9000000000L00000000)');
    expect(r.reply?.toString()).toBe('(088047365460AP05)');
    expect(r.records).toHaveLength(1);
  });
  it('confirms a BO01 alarm with AS01 and the alarm digit', () => {
    const r = decode('(013612345678BO012061830A2934.0133N10627.2544E040.0080331309.6200000000L000770AD)');
    expect(r.reply?.toString()).toBe('(013612345678AS012)');
    expect(r.records![0].attributes.alarm).toBe('sos');
  });
  it('sends nothing for a plain BR00 report', () => {
    expect(decode('(088047365460BR00151024A2555.3531S02855.3329E004.7055148276.1701000000L00009AA3)').reply).toBeUndefined();
  });
});

describe('tk103 decoding', () => {
  it('decodes a compact BR00 fix with IO, fuel and odometer', () => {
    const [r] = decode('(088047365460BR00151024A2555.3531S02855.3329E004.7055148276.1701000000L00009AA3)').records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-10-24T05:51:48.000Z');
    expect(r.lat).toBeCloseTo(-25.92255, 5);
    expect(r.lng).toBeCloseTo(28.92222, 5);
    expect(r.speed).toBe(4.7); // km/h as sent
    expect(r.course).toBe(276.17);
    expect(r.attributes).toMatchObject({ charge: true, ignition: true, fuel: 0, odometer: 0x9aa3 });
  });
  it('decodes the comma format with altitude and satellites, date ddmmyy', () => {
    const [r] = decode('(864768010869060,DW30,050117,A,5135.82713N,00001.17918E,0.089,154745,000.0,43.40,12)').records!;
    expect(new Date(r.time!).toISOString()).toBe('2017-01-05T15:47:45.000Z');
    expect(r).toMatchObject({ altitude: 43.4, satellites: 12, valid: true });
  });
  it('reads temperature after the odometer', () => {
    const [r] = decode('(088046338039BR00160727A3354.7768N03540.7258E000.0140832068.4700000000L00BEB0D4+017.7)').records!;
    expect(r.attributes.temp1).toBe(17.7);
  });
  it('decodes ZC20 battery in volts and percent', () => {
    const [r] = decode('(013632651491,ZC20,040613,040137,6,421,112,0)').records!;
    expect(r.attributes.batteryLevel).toBe(100);
    expect(r.attributes.battery).toBeCloseTo(4.21, 6);
    expect(r.attributes.power).toBeCloseTo(11.2, 6);
  });
  it('turns a ZC03 reply into a result record, ) inside the text included', () => {
    const [r] = decode('(864555555555555,ZC03,191117,234207,$Interval (s): 60$)').records!;
    expect(r.attributes.result).toBe('Interval (s): 60');
  });
  it('decodes cell lists and BZ00 hex cells', () => {
    const [a] = decode('(027046434858BZ00,{460,0,20949,58711}\n{460,0,20494,54003}\n,01000000)').records!;
    expect(a.cells).toEqual([
      { mcc: 460, mnc: 0, lac: 20949, cid: 58711 },
      { mcc: 460, mnc: 0, lac: 20494, cid: 54003 },
    ]);
    const [b] = decode('(087073104337BZ00,740,000,3bf7,0425,3bf7,0bf5,01000000)').records!;
    expect(b.cells).toEqual([{ mcc: 740, mnc: 0, lac: 0x3bf7, cid: 0x0425 }]);
  });
  it('places a DW5x cell report at the last fix of the connection, as invalid', () => {
    const c = ctx();
    decode('(864768010869060,DW30,050117,A,5135.82713N,00001.17918E,0.089,154745,000.0,43.40,12)', c);
    const [r] = decode('(358511020000026,DW5B,310,6,29876,30393,0,041217,102211)', c).records!;
    expect(r).toMatchObject({ valid: false, cells: [{ mcc: 310, mnc: 6, lac: 29876, cid: 30393 }] });
    expect(r.lat).toBeCloseTo(51.597119, 5);
    const [fresh] = decode('(358511020000026,DW5B,310,6,29876,30393,0,041217,102211)').records!;
    expect(fresh.lat).toBeUndefined();
  });
  it('decodes the VIN', () => {
    expect(decode('(027023361470BV005J6RW2H53HL066029)').records![0].attributes.vin).toBe('5J6RW2H53HL066029');
  });
});

describe('tk103 framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('skips garbage before ( and returns one frame at a time', () => {
    const r = next('junk(1BP00HSO)(2BP00HSO)');
    expect(r?.frame.toString()).toBe('(1BP00HSO)');
    expect(r?.consumed).toBe(14);
  });
  it('waits for the closing parenthesis, ignoring ) inside $text$', () => {
    expect(next('(1,ZC03,191117,234421,$a)b')).toBeNull();
    expect(next('(1,ZC03,191117,234421,$a)b$)x')?.frame.toString()).toBe('(1,ZC03,191117,234421,$a)b$)');
  });
  it('rejects a stream that never frames', () => {
    expect(() => next('x'.repeat(3000))).toThrow(FrameError);
    expect(() => next(`(${'1'.repeat(3000)}`)).toThrow(FrameError);
  });
});

describe('tk103 commands', () => {
  it('encodes the standard commands', () => {
    expect(encode('engineStop')).toBe('(123456789012345AV010)');
    expect(encode('engineResume')).toBe('(123456789012345AV011)');
    expect(encode('positionPeriodic', { frequency: 60 })).toBe('(123456789012345AR00003C0000)');
    expect(encode('custom', { data: 'AA00' })).toBe('(123456789012345AA00)');
  });
  it('encodes the alternative SMS form when configured, or when only it can carry the command', () => {
    expect(encode('positionSingle', {}, { alternative: true })).toBe('[begin]sms2,*getposl*,[end]');
    expect(encode('custom', { data: 'any text' })).toBe('[begin]sms2,any text,[end]');
    expect(encode('setConnection', { server: '1.2.3.4', port: 5555 })).toBe('[begin]sms2,*setip*1*2*3*4*5555*,[end]');
    expect(encode('alarmSos', { enable: false })).toBe('[begin]sms2,*sosoff*,[end]');
  });
  it('refuses unknown commands', () => {
    expect(() => encode('message', { message: 'hi' })).toThrow();
  });
});
