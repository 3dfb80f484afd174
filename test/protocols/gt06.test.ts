import { describe, it, expect } from 'vitest';
import { protocol, buildFrame } from '../../protocols/gt06/index.ts';
import { crc16X25 } from '../../protocols/binary.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const hex = (h: string) => Buffer.from(h, 'hex');
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);

function connection(config: Record<string, unknown> = {}) {
  const ctx: DecodeContext = { now: NOW, transport: 'tcp', config, session: {} };
  return (h: string) => {
    const result = protocol.decode!(hex(h), ctx);
    if (result.deviceId) ctx.deviceId = result.deviceId;
    return result;
  };
}

const LOGIN = '78780d01012345678901234500018cdd0d0a';

describe('gt06 replies', () => {
  it('acknowledges a login with the serial and X-25 CRC', () => {
    const r = connection()(LOGIN);
    expect(r.deviceId).toBe('123456789012345');
    expect(r.records).toBeUndefined();
    expect(r.reply?.toString('hex')).toBe('787805010001d9dc0d0a');
  });

  it('acknowledges a status/heartbeat frame echoing its serial', () => {
    const send = connection();
    send(LOGIN);
    const r = send('78780a13440604000201baaf540d0a');
    expect(r.reply?.toString('hex')).toBe(buildFrame(false, 0x13, 0x01ba).toString('hex'));
    expect(r.records).toHaveLength(1);
    expect(r.records![0].attributes.batteryLevel).toBe(100);
  });

  it('builds reply frames the way the device checks them', () => {
    const f = buildFrame(false, 0x13, 1);
    expect(f.toString('hex')).toBe('787805130001e9f10d0a');
    expect(f.readUInt16BE(6)).toBe(crc16X25(f, 2, 6));
  });

  it('acknowledges a fix with its serial', () => {
    const send = connection();
    send(LOGIN);
    const r = send('78781f120f0a140e150bc505e51e780293a9e800540000f601006e0055da00035f240d0a');
    expect(r.reply?.toString('hex')).toBe(buildFrame(false, 0x12, 0x0003).toString('hex'));
  });

  it('echoes the BCD time of a Wi-Fi scan in an unframed reply', () => {
    const send = connection();
    send(LOGIN);
    const r = send('787800691710231108500200cc080c4e2fa5640c4e2fa66e0d0a');
    expect(r.reply?.toString('hex')).toBe('787800691710231108500d0a');
    expect(r.records![0].cells).toHaveLength(2);
    expect(r.records![0].time).toBe(Date.UTC(2017, 9, 23, 11, 8, 50));
  });

  it('answers a time request with the current UTC time', () => {
    const send = connection();
    send(LOGIN);
    const r = send('7878058a000688290d0a');
    expect(r.reply?.subarray(0, 10).toString('hex')).toBe('78780b8a190102030405');
    expect(r.records).toBeUndefined();
  });

  it('does not acknowledge anything before the login', () => {
    const r = connection()('78781f120f0a140e150bc505e51e780293a9e800540000f601006e0055da00035f240d0a');
    expect(r).toEqual({});
  });
});

describe('gt06 decoded values', () => {
  it('decodes a GPS+LBS fix: position, km/h speed, course word flags, serving cell', () => {
    const send = connection();
    send(LOGIN);
    const rec = send('78781f120f0a140e150bc505e51e780293a9e800540000f601006e0055da00035f240d0a').records![0];
    expect(rec.time).toBe(Date.UTC(2015, 9, 20, 14, 21, 11));
    expect(rec.valid).toBe(true);
    expect(rec.lat).toBeCloseTo(54.94535, 5);
    expect(rec.lng).toBeCloseTo(24.01762, 5);
    expect(rec.satellites).toBe(5);
    expect(rec.speed).toBe(0);
    expect(rec.cells).toEqual([{ mcc: 246, mnc: 1, lac: 110, cid: 21978 }]);
  });

  it('reads speed as km/h and ACC from the course word', () => {
    const send = connection();
    send(LOGIN);
    const rec = send('787821121303120b2524c70138e363085b549003d43301940057d200cd52c000006aa1ca0d0a').records![0];
    expect(rec.speed).toBe(3);
    expect(rec.course).toBe(51);
    expect(rec.attributes.ignition).toBe(true);
  });

  it('applies the time zone announced in the login', () => {
    const send = connection();
    send('787811010123456789012345100b3201000171930d0a'); // +08:00
    const rec = send('78781f120f0a140e150bc505e51e780293a9e800540000f601006e0055da00035f240d0a').records![0];
    expect(rec.time).toBe(Date.UTC(2015, 9, 20, 6, 21, 11));
  });

  it('reports voltages in volts', () => {
    const send = connection({ modelOverride: 'R11' });
    send(LOGIN);
    expect(send('78780a13460b120400160642c20d0a').records![0].attributes.power).toBeCloseTo(28.34, 9);
    const send2 = connection();
    send2(LOGIN);
    expect(send2('787817360005040002003201010018020192006a015f0324aeaf0d0a').records![0].attributes.battery).toBeCloseTo(4.02, 9);
  });

  it('turns command replies into result text', () => {
    const send = connection();
    send(LOGIN);
    const r = send('78782d152500000000437574206f666620746865206675656c20737570706c793a2053756363657373210002013b898a0d0a');
    expect(r.records![0].attributes.result).toBe('Cut off the fuel supply: Success!');
    expect(r.reply?.toString('hex')).toBe(buildFrame(false, 0x15, 0x013b).toString('hex'));
  });

  it('decodes alarm codes of the status block', () => {
    const send = connection();
    send(LOGIN);
    const rec = send('787826161709130f3a2dcc02c55f2a089f9af9005c210901360481fe066d9b03413e420102035f92fe0d0a').records![0];
    expect(rec.attributes.alarm).toBe('sos');
  });
});

describe('gt06 framer', () => {
  const a = '78780d01012345678901234500018cdd0d0a';
  const b = '78781f120f0a140e150bc505e51e780293a9e800540000f601006e0055da00035f240d0a';

  it('waits for more bytes on a partial frame', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex(a.slice(0, 8)))).toBeNull();
    expect(f.next(hex(a.slice(0, 30)))).toBeNull();
  });

  it('cuts the first of several frames in one chunk', () => {
    const f = protocol.createFramer!();
    const out = f.next(hex(a + b));
    expect(out?.frame.toString('hex')).toBe(a);
    expect(out?.consumed).toBe(a.length / 2);
    expect(f.next(hex(b))?.frame.toString('hex')).toBe(b);
  });

  it('cuts long (0x7979) frames by their two-byte length', () => {
    const long = '7979000d940516090908081c030defbd2d0d0a';
    expect(protocol.createFramer!().next(hex(long + a))?.frame.toString('hex')).toBe(long);
  });

  it('falls back to CR LF when the declared length is wrong', () => {
    const shortLogin = '78780d0103563140414198583c0d0a'; // declares 3 bytes more than it has
    expect(protocol.createFramer!().next(hex(shortLogin))?.frame.toString('hex')).toBe(shortLogin);
    const wifi = '787800691710231108500200cc080c4e2fa5640c4e2fa66e0d0a'; // length byte is the Wi-Fi count
    expect(protocol.createFramer!().next(hex(wifi + a))?.frame.toString('hex')).toBe(wifi);
  });

  it('rejects garbage', () => {
    expect(() => protocol.createFramer!().next(hex('474554202f20485454502f312e310d0a'))).toThrow(FrameError);
  });
});

describe('gt06 commands', () => {
  const enc = (type: string, attributes: Record<string, string> = {}, config: Record<string, unknown> = {}) =>
    protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: NOW, config }).toString('hex');

  it('encodes engine stop/resume as relay commands in a 0x80 frame', () => {
    expect(enc('engineStop')).toBe('787812800c0000000052656c61792c312300009dee0d0a');
    const resume = hex(enc('engineResume'));
    expect(resume.subarray(9, 17).toString()).toBe('Relay,0#');
  });

  it('uses the alternative fuel cut-off commands with the device password', () => {
    const b = hex(enc('engineStop', {}, { alternative: true, password: '654321' }));
    expect(b[4]).toBe(4 + 'DYD,654321#'.length);
    expect(b.subarray(9, 9 + 11).toString()).toBe('DYD,654321#');
  });

  it('encodes custom text and chat messages with length, server flag, serial and CRC', () => {
    const b = hex(enc('custom', { data: 'WHERE#' }));
    expect(b.subarray(0, 4).toString('hex')).toBe('78781080');
    expect(b[4]).toBe(10);
    expect(b.subarray(5, 9).toString('hex')).toBe('00000000');
    expect(b.subarray(9, 15).toString()).toBe('WHERE#');
    expect(b.readUInt16BE(15)).toBe(0);
    expect(b.readUInt16BE(17)).toBe(crc16X25(b, 2, 17));
    expect(b.subarray(19).toString('hex')).toBe('0d0a');
    expect(hex(enc('message', { message: 'Hello' })).subarray(9, 14).toString()).toBe('Hello');
    expect(protocol.carriesText).toBe(true);
  });

  it('adds the English language word when configured', () => {
    const b = hex(enc('custom', { data: 'STATUS#' }, { language: true }));
    expect(b[2]).toBe(1 + 1 + 4 + 7 + 2 + 2 + 2);
    expect(b.readUInt16BE(16)).toBe(2);
  });

  it('rejects unsupported command types', () => {
    expect(() => enc('positionPeriodic')).toThrow();
  });
});
