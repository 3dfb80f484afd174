import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gl200/index.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config, session: {} });
const text = (s: string) => Buffer.from(s, 'latin1');
const hex = (s: string) => Buffer.from(s, 'hex');

const FRI = '+RESP:GTFRI,020102,135790246811220,,0,0,1,1,4.3,92,70.0,121.354335,31.222073,20090214013254,0460,0000,18d8,6141,00,,20090214093254,11F0$';
const RSP = '2b5253500700fc1fbf005d4501020209563254030003430564377e42071001000000000000007eff75a151025c6a8107e10801081a2a02680003189c1ac500000000000002100700000000000000000007e1080108241019e17ebe0d0a';
const EVT_VGN = '2b4556542d00fc1fbf0063450102020956325403000343056437f8220700000200000000010000160100f2007eff75a1f0025c6b1a07e1080108241a02680003189c1ac500000000000002100800000000000000000007e1080108241a19e24e4e0d0a';
const PRO = '2b000038000865134050947226820300030000216a3ed6f101895000521629fa8b28f402ac1a8e6a3ed6f100001600000010f505010ff824';

describe('gl200 replies', () => {
  it('answers the +ACK:GTHBD heartbeat with +SACK:GTHBD echoing version and count', () => {
    const r = protocol.decode!(text('+ACK:GTHBD,1A0401,135790246811220,,20100214093254,11F0$'), ctx());
    expect(r.deviceId).toBe('135790246811220');
    expect(r.records ?? []).toEqual([]);
    expect(r.reply?.toString()).toBe('+SACK:GTHBD,1A0401,11F0$');
  });

  it('sends +SACK:<count>$ for reports only when the ack setting is on', () => {
    expect(protocol.decode!(text(FRI), ctx()).reply).toBeUndefined();
    expect(protocol.decode!(text(FRI), ctx({ ack: true })).reply?.toString()).toBe('+SACK:11F0$');
  });

  it('echoes the Protocol Pro count number when acking', () => {
    expect(protocol.decode!(hex(PRO), ctx({ ack: true })).reply?.toString()).toBe('+SACK:010F$');
  });

  it('turns command acknowledgements into result records', () => {
    const r = protocol.decode!(text('+ACK:GTRTO,1A0800,860599000773978,GL300,VER,FFFF,20161006053520,0C19$'), ctx());
    expect(r.records?.[0].attributes.result).toBe('+ACK:GTRTO,1A0800,860599000773978,GL300,VER,FFFF,20161006053520,0C19');
  });
});

describe('gl200 framer', () => {
  const next = (s: Buffer) => protocol.createFramer!().next(s);

  it('cuts text frames at $ and drops the delimiter', () => {
    const f = next(text(`${FRI}${FRI}`));
    expect(f?.frame.toString()).toBe(FRI.slice(0, -1));
    expect(f?.consumed).toBe(FRI.length);
  });

  it('waits for the rest of a partial text or binary frame', () => {
    expect(next(text(FRI.slice(0, 40)))).toBeNull();
    expect(next(hex(RSP).subarray(0, 50))).toBeNull();
  });

  it('cuts binary frames by their length field, leaving the next one in the buffer', () => {
    const f = next(Buffer.concat([hex(RSP), hex(RSP).subarray(0, 10)]));
    expect(f?.frame.toString('hex')).toBe(RSP);
    expect(next(Buffer.concat([hex(PRO), hex(PRO)]))?.consumed).toBe(56);
  });

  it('accepts the GT300 NUL terminator and skips stray terminators between frames', () => {
    const f = next(text('\0\r\n+RESP:GTTRI,862370030005908,1,0,99\0'));
    expect(f?.frame.toString()).toBe('+RESP:GTTRI,862370030005908,1,0,99');
    expect(f?.consumed).toBe(38);
  });

  it('rejects garbage and absurd binary lengths', () => {
    expect(() => next(text('GARBAGE,123$'))).toThrow(FrameError);
    expect(() => next(hex('2b52535007000000000001'))).toThrow(FrameError);
  });
});

describe('gl200 text decoding', () => {
  it('decodes a fixed report: coordinates, km/h speed, cell', () => {
    const [rec] = protocol.decode!(text(FRI), ctx()).records!;
    expect(rec).toMatchObject({ lat: 31.222073, lng: 121.354335, speed: 4.3, course: 92, altitude: 70, valid: true, hdop: 1 });
    expect(rec.time).toBe(Date.UTC(2009, 1, 14, 1, 32, 54));
    expect(rec.cells).toEqual([{ mcc: 460, mnc: 0, lac: 0x18d8, cid: 0x6141 }]);
  });

  it('marks a fix with GNSS accuracy 0 invalid (last known position)', () => {
    const s = '+RESP:GTIGF,270302,867162025085234,,3519,0,0.0,92,111.2,-116.867638,32.450321,20180327070835,0334,0020,2B24,52CC3DE,00,,243.1,20180327070837,2A98$';
    const [rec] = protocol.decode!(text(s), ctx()).records!;
    expect(rec.valid).toBe(false);
    expect(rec.attributes).toMatchObject({ ignition: false, odometer: 243100 });
  });

  it('reads power in volts and the GV310LAU analog inputs from GTINF', () => {
    const s = '+RESP:GTINF,6E0202,868589060187625,RA82,11,89883030000091225018,41,0,1,12349,,4.15,0,1,0,0,20240328231013,0,0,0,0,00,00,+0000,0,20240328231015,7D4F';
    const [rec] = protocol.decode!(text(s), ctx()).records!;
    expect(rec.attributes).toMatchObject({ power: 12.349, battery: 4.15, iccid: '89883030000091225018', adc3: 0 });
    expect(rec.lat).toBeUndefined();
  });

  it('reads signed 1-wire temperatures in 1/16 degree', () => {
    const s = '+RESP:GTERI,040A00,862894022579562,gv200,00000002,,10,1,1,96.1,180,749.7,39.222692,24.165463,20210225065756,0420,0004,759C,3360,00,15529.8,,,2789,,01,00,2,2,282BD47A0B000063,1,FFE2,281FDD5D0B000057,1,FFC8,20210225065800,6974$';
    const [rec] = protocol.decode!(text(s), ctx()).records!;
    expect(rec.attributes).toMatchObject({ temp1: -1.875, temp2: -3.5, odometer: 15529800, input: 1 });
  });

  it('keeps CAN rpm and speed apart (rpm precedes speed on the wire)', () => {
    const s = '+RESP:GTCAN,4B0201,867995030004314,,00,1,C07FFFFF,,2,H982769,30263.00,1266,69,82,H0,P69.20,,0,2037.40,243.93,45.56,74.33,13115,,C00,,0,,,0,68.3,99,42.5,-69.099503,18.445614,20190417233605,0370,0002,5A3D,EB42,00,20190417183607,BD76$';
    const [rec] = protocol.decode!(text(s), ctx()).records!;
    expect(rec.attributes).toMatchObject({ rpm: 1266, obdSpeed: 69, coolantTemp: 82, fuel: 69.2, obdOdometer: 98276900 });
    expect(rec).toMatchObject({ lat: 18.445614, lng: -69.099503, speed: 68.3 });
  });

  it('gives a report without a fix the last known position, marked invalid', () => {
    const c = ctx();
    protocol.decode!(text(FRI), c);
    const s = '+RESP:GTFRI,210102,354524044925825,,1,1,1,,,,,,,,310,410,51bc,ca1dae6,10800,1,20170318214333,0002$';
    const [rec] = protocol.decode!(text(s), c).records!;
    expect(rec).toMatchObject({ lat: 31.222073, lng: 121.354335, valid: false });
    expect(rec.cells).toEqual([{ mcc: 310, mnc: 410, lac: 0x51bc, cid: 0xca1dae6 }]);
  });

  it('throws DecodeError for sentences it cannot read', () => {
    expect(() => protocol.decode!(text('+RESP:GTFRI,020102'), ctx())).toThrow(DecodeError);
    expect(() => protocol.decode!(text('+RESP:GTFRI,020102,not-an-imei,,0$'), ctx())).toThrow(DecodeError);
  });
});

describe('gl200 binary decoding', () => {
  it('decodes +RSP: decimal-pair IMEI, BCD MCC, volts', () => {
    const r = protocol.decode!(hex(RSP), ctx());
    expect(r.deviceId).toBe('865084030003675');
    const [rec] = r.records!;
    expect(rec).toMatchObject({ altitude: 126, valid: false, satellites: 7 });
    expect(rec.lat).toBeCloseTo(39.611009, 6);
    expect(rec.lng).toBeCloseTo(-9.068207, 6);
    expect(rec.cells).toEqual([{ mcc: 268, mnc: 3, lac: 0x189c, cid: 0x1ac5 }]);
    expect(rec.attributes).toMatchObject({ power: 14.206, batteryLevel: 100 });
  });

  it('reads HEX speed as whole km/h plus tenths and skips event-specific bytes', () => {
    const [rec] = protocol.decode!(hex(EVT_VGN), ctx()).records!;
    expect(rec.speed).toBeCloseTo(22.1, 6);
    expect(rec.course).toBe(242);
    expect(rec.attributes.event).toBe(45);
  });

  it('rejects a HEX frame with a bad checksum', () => {
    const bad = hex(RSP);
    bad[30] ^= 1;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });

  it('decodes a Protocol Pro full-location record', () => {
    const r = protocol.decode!(hex(PRO), ctx());
    expect(r.deviceId).toBe('865134050947226');
    expect(r.records).toHaveLength(1);
    const [rec] = r.records!;
    expect(rec).toMatchObject({ speed: 0, course: 0, satellites: 5, valid: true });
    expect(rec.lat).toBeCloseTo(44.833422, 6);
    expect(rec.lng).toBeCloseTo(-91.543308, 6);
    expect(rec.altitude).toBeCloseTo(434.1, 6);
    expect(rec.hdop).toBeCloseTo(2.2, 6);
    expect(rec.time).toBe(0x6a3ed6f1 * 1000);
  });

  it('rejects a Protocol Pro frame with a bad CRC-8', () => {
    const bad = hex(PRO);
    bad[bad.length - 2] ^= 0xff;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });
});

describe('gl200 commands', () => {
  const enc = (type: string, attributes: Record<string, string> = {}, config: Record<string, unknown> = {}) =>
    protocol.encode!({ type, attributes }, { deviceId: '135790246811220', now: 0, config }).toString();

  it('encodes @Track AT commands with the device password', () => {
    expect(enc('positionSingle')).toBe('AT+GTRTO=gl200,1,,,,,,FFFF$');
    expect(enc('rebootDevice', {}, { password: 'gv300' })).toBe('AT+GTRTO=gv300,3,,,,,,FFFF$');
    expect(enc('engineStop')).toBe('AT+GTOUT=gl200,1,,,0,0,0,0,0,0,0,,,,,,,FFFF$');
  });

  it('sends custom data verbatim and refuses unknown types', () => {
    expect(enc('custom', { data: 'AT+GTVER=gl200,,,,,,,0001$' })).toBe('AT+GTVER=gl200,,,,,,,0001$');
    expect(() => enc('message', { message: 'hi' })).toThrow();
  });
});
