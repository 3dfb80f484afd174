import { describe, it, expect } from 'vitest';
import { protocol, elChecksum } from '../../protocols/eelink.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3); // 0x67b9220b s
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const reply = (h: string) => decode(h).reply?.toString('hex');

const LOGIN_1 = '676701000c007b03525440717505180104';
const LOGIN_2_UDP = '454c0027e753035254407167747167670100180002035254407167747100200205020500010432000086bd';
const HEARTBEAT = '67670300040021006e';
const LOCATION = '6767120043000e5c37387c0304e4e1b4f8194fa800160013009408012e03702d8706453c6e5b066f115f05710000001b067f8d248d240313020500000000000000000000000001cc';
const WARNING = '676714002b00515784cc24130246479b07d05a06001800010000060195039f046100002cc52f6466b391604a49020089';
const GPS = '676702001b03c5538086df0190c1790b3482df0f0157020800013beb00342401';
const ALARM = '676704001c01a4569ff2dd0517a0f7020b0d9a06011000d8001e005b0004450183';
const STATE = '676705002200ba569fc3520517a0d8020b0f740f007100d8001e005b0004460101569fd162001f';
const OBD = '676707006502df5c89fde800bc3fa8030302005555045b555555057a5555550b225555550c105c55550d115555550e7e5555550f4555555510017b5555112b5555551f01ed5555208005b0012100005555407ad000004237f5555589000000498a0000aef78b00000000';
const REPLY_TEXT = '676780005e5788014c754c754c61743a4e32332e3131313734330a4c6f6e3a453131342e3430393233380a436f757273653a302e30300a53706565643a302e31374b4d2f480a446174652054696d653a323031352d30392d31332032303a32313a3230';

describe('eelink replies', () => {
  it('answers a 1.x login with its type and index, nothing else', () => {
    const r = decode(LOGIN_1);
    expect(r.deviceId).toBe('352544071750518');
    expect(r.reply?.toString('hex')).toBe('6767010002007b');
  });
  it('answers a 2.0 login over UDP in an EL datagram with server time, protocol version 1 and no action', () => {
    expect(reply(LOGIN_2_UDP)).toBe('454c0018e92c03525440716774716767010009000267b9220b000100');
  });
  it('acknowledges heartbeat, location, warning, alarm and state packets with type and index', () => {
    expect(reply(HEARTBEAT)).toBe('67670300020021');
    expect(reply(LOCATION)).toBe('6767120002000e');
    expect(reply(WARNING)).toBe('67671400020051');
    expect(reply(ALARM)).toBe('676704000201a4');
    expect(reply(STATE)).toBe('676705000200ba');
    expect(reply(OBD)).toBe('676707000202df');
  });
  it('does not acknowledge 1.x GPS packets nor answers to instructions', () => {
    expect(reply(GPS)).toBeUndefined();
    expect(reply(REPLY_TEXT)).toBeUndefined();
  });
  it('computes the EL checksum (rotate left, add)', () => {
    const d = Buffer.from(LOGIN_2_UDP, 'hex');
    expect(elChecksum(d, 6)).toBe(0xe753);
    d[20] ^= 1;
    expect(() => protocol.decode!(d, ctx())).toThrow(DecodeError);
  });
});

describe('eelink decoding', () => {
  it('2.0 location: GPS, main cell, status, battery, mileage and the thermometer', () => {
    const [f] = decode(LOCATION).records!;
    expect(new Date(f.time!).toISOString()).toBe('2019-01-10T12:20:12.000Z');
    expect(f).toMatchObject({ valid: true, altitude: 22, speed: 19, course: 148, satellites: 8 });
    expect(f.lat).toBeCloseTo(45.616029, 6);
    expect(f.lng).toBeCloseTo(-73.643853, 6);
    expect(f.cells).toEqual([{ mcc: 302, mnc: 880, lac: 11655, cid: 105200750, rssi: 91 }]);
    expect(f.attributes).toMatchObject({ ignition: true, battery: 4.447, odometer: 1771135, temp2: 28.75 });
  });
  it('2.0 warning and 1.x alarm types', () => {
    expect(decode(WARNING).records![0].attributes.alarm).toBe('sos');
    expect(decode(ALARM).records![0].attributes.alarm).toBe('geofenceEnter');
    expect(decode('676714001500035f74a2940201360104591100a7160122250400').records![0].attributes.alarm).toBe('removing');
  });
  it('1.x GPS: 1/1 800 000 degree, km/h, 3-byte cell id', () => {
    const [f] = decode(GPS).records!;
    expect(f).toMatchObject({ valid: true, speed: 15, course: 343, cells: [{ mcc: 520, mnc: 1, lac: 15339, cid: 13348 }] });
    expect(f.lat).toBeCloseTo(14.591072, 6);
  });
  it('OBD items: raw values through the SAE formulas', () => {
    const [o] = decode(OBD).records!;
    expect(o.attributes).toMatchObject({ coolantTemp: 82, rpm: 1047, obdSpeed: 17 });
    expect(o.attributes.engineLoad).toBeCloseTo(35.686, 3);
  });
  it('an instruction answer with a position becomes a fix with the text as result', () => {
    const [f] = decode(REPLY_TEXT).records!;
    expect(f).toMatchObject({ lat: 23.111743, lng: 114.409238, speed: 0.17 });
    expect(String(f.attributes.result)).toContain('Date Time:2015-09-13 20:21:20');
  });
  it('places a location without GPS at the last fix of the connection, not valid', () => {
    const c = ctx();
    decode(LOCATION, c);
    const [f] = decode('676712001e0092579714d60201f90001785003a301cd1a006a118504f2000000000000', c).records!;
    expect(f).toMatchObject({ valid: false });
    expect(f.lat).toBeCloseTo(45.616029, 6);
  });
});

describe('eelink framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts gg packets and EL datagrams by their length', () => {
    expect(next(HEARTBEAT + HEARTBEAT)?.frame.toString('hex')).toBe(HEARTBEAT);
    expect(next(LOGIN_2_UDP + HEARTBEAT)?.frame.toString('hex')).toBe(LOGIN_2_UDP);
    expect(next(HEARTBEAT.slice(0, 12))).toBeNull();
  });
  it('rejects other bytes', () => {
    expect(() => next('0000000000')).toThrow(FrameError);
  });
});

describe('eelink commands', () => {
  const e = (type: string, transport?: 'udp') => protocol.encode!({ type, attributes: { data: 'STATUS#' } }, { deviceId: '123456789012345', now: NOW, config: {}, transport }).toString('hex');
  it('sends instructions as text in packet 0x80, wrapped in EL over UDP', () => {
    expect(e('engineStop')).toBe('676780000f0000010000000052454c41592c3123');
    expect(e('engineStop', 'udp')).toBe('454c001eb41a0123456789012345676780000f0000010000000052454c41592c3123');
    expect(Buffer.from(e('custom'), 'hex').subarray(12).toString()).toBe('STATUS#');
  });
});
