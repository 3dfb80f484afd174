import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/castel.ts';
import { crc16X25 } from '../../protocols/binary.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3); // 0x67b9220b s
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

// SC (version 4) login without GPS, heartbeat, alarm (idle) with one fix
const LOGIN =
  '4040d0000432313345503230313630303035383500000000001001831c1c58b1fc1c58ae94040012220000f60400005800000000000763016800008484004944445f3231335730315f532056312e302e37004944445f3231335730315f482056312e302e370032000110021003100410051006100710081009100a100b100c100d100e1011100111021103110411051106110711011202120312041201130213031301160216011701180218011b011c011d011e011f021f031f041f051f061f071f0121022101260127012861780d0a';
const HEARTBEAT = '40401f00043130303131313235323939383700000000000000100303320d0a';
const ALARM =
  '40406000043130303131313235323939383700000000000000400705000000c1f0695249f469529c9111000000000069830000d80040000400036401014c04030001190a0d04201e1480d60488c5721800000000af0101060f000f00ea1e0d0a';
// CC (version 12) heartbeat with one fix, login
const CC_HEARTBEAT = '404044000c3631313135303030303935360000000000000000420600011e0a0f0b1312864fcd08c07a13030100640acf000004000a000000000000007ba083a66ad80d0a';
const CC_LOGIN =
  '40405c000c363131313530303030393536000000000000000040011c0a0f0e362dca53cd0860831303000000000300000000ff000000000000007ba083a650542d3639305f56312e312e320050542d3639302056312e32008a020d0a';
const DTCS = '40404500033231334c323031373030303432320000000000004006e1ad205bf1ad205b48510f000000000050160000000000020400053f007c000083040001511346160d0a';
const PIDS =
  '40407100043231384c31454332303235303030303032000000400256ad2f697eb22f69af2d2f0184550000d81c0000c60004020400213d294b1d00831d0f000d05210b210c210d210f212f21332143214621472149214a21672101115a594908790b62613f0a24190d01820000b84b0d0a';

describe('castel replies', () => {
  it('uses CRC-16/X-25 (check value of "123456789")', () => {
    expect(crc16X25(Buffer.from('123456789'))).toBe(0x906e);
  });
  it('answers an SC login with 0x9001: keep this server (ip all ones, port 0) and the UTC time', () => {
    const r = decode(LOGIN);
    expect(r.deviceId).toBe('213EP2016000585');
    expect(r.records).toEqual([]); // no GPS item in this login
    expect(r.reply?.toString('hex')).toBe('404029000432313345503230313630303035383500000000009001ffffffff00000b22b967693a0d0a');
  });
  it('answers an SC heartbeat with an empty 0x9003', () => {
    expect(decode(HEARTBEAT).reply?.toString('hex')).toBe('40401f000431303031313132353239393837000000000000009003cfbe0d0a');
  });
  it('answers an SC alarm with 0xC007 carrying the alarm sequence number', () => {
    const r = decode(ALARM);
    expect(r.reply?.toString('hex')).toBe('40402300043130303131313235323939383700000000000000c00705000000a9d50d0a');
    expect(r.records![0].attributes.alarm).toBe('idle');
  });
  it('answers CC login and heartbeat with 0x8001 and 0x8206 in the device version', () => {
    expect(decode(CC_LOGIN).reply?.toString('hex')).toBe('40401f000c3631313135303030303935360000000000000000800159560d0a');
    expect(decode(CC_HEARTBEAT).reply?.toString('hex')).toBe('40401f000c3631313135303030303935360000000000000000820656110d0a');
  });
  it('sends nothing back for GPS data', () => {
    expect(decode(PIDS).reply).toBeUndefined();
  });
});

describe('castel decoding', () => {
  it('reads a GPS item: 1/3 600 000 degree, cm/s, 0.1 degree, hemisphere and fix flags', () => {
    const [f] = decode(ALARM).records!;
    expect(new Date(f.time!).toISOString()).toBe('2013-10-25T04:32:30.000Z');
    expect(f).toMatchObject({ valid: true, speed: 0, course: 0, satellites: 10 });
    expect(f.lat).toBeCloseTo(22.54621, 5);
    expect(f.lng).toBeCloseTo(113.93746, 5);
    expect(f.attributes).toMatchObject({ odometer: 1151388, fuelUsed: 336.41 });
  });
  it('reads southern and western hemispheres from the flags', () => {
    const [f] = decode(CC_HEARTBEAT).records!;
    expect(f.lat).toBeCloseTo(41.020268, 5);
    expect(f.lng).toBeCloseTo(14.335627, 5);
    expect(f.course).toBe(266);
    const [s] = decode('40408200033231334c32303137303031313039000000000000100136477b5964477b590400000000000000dc410f000000000204000709207910008304011c07110e110dd41a160714a95a0f00001e058c4944442d3231334c2056312e312e3120323031372d30352d3038004944442d3231334c2056312e312e300000006da10d0a').records!;
    expect(s.lat).toBeCloseTo(-33.02477, 5); // Chile: south, west
    expect(s.lng).toBeCloseTo(-71.55549, 5);
  });
  it('decodes OBD values (sent already scaled) and DTCs', () => {
    const [p] = decode(PIDS).records!;
    expect(p.lat).toBeUndefined();
    expect(p.attributes).toMatchObject({ coolantTemp: 90, rpm: 2121, obdSpeed: 121, fuelLevel: 98 });
    expect(decode(DTCS).records![0].attributes.dtcs).toBe('P1351');
  });
  it('keeps the CC status word and ignition', () => {
    expect(decode(CC_LOGIN).records![0].attributes).toMatchObject({ status: 0, ignition: false });
  });
  it('refuses a bad CRC and bad markers', () => {
    const bad = Buffer.from(HEARTBEAT, 'hex');
    bad[27] ^= 1;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
    expect(() => protocol.decode!(Buffer.from('4141' + HEARTBEAT.slice(4), 'hex'), ctx())).toThrow(DecodeError);
  });
});

describe('castel framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts by the length field and skips noise before @@', () => {
    expect(next('00ff' + HEARTBEAT + HEARTBEAT)).toEqual({ frame: Buffer.from(HEARTBEAT, 'hex'), consumed: 2 + 31 });
    expect(next(HEARTBEAT.slice(0, 40))).toBeNull();
  });
  it('rejects impossible lengths', () => {
    expect(() => next('40400500')).toThrow(FrameError);
    expect(() => next('4040ffff')).toThrow(FrameError);
  });
});

describe('castel commands', () => {
  it('encodes the petrol-control relay', () => {
    const e = (type: string) => protocol.encode!({ type, attributes: {} }, { deviceId: '123456789012345', now: NOW, config: {} }).toString('hex');
    expect(e('engineStop')).toBe('40402000013132333435363738393031323334350000000000458301a94a0d0a');
    expect(e('engineResume').slice(0, 56)).toBe('40402000013132333435363738393031323334350000000000458300');
    expect(() => e('custom')).toThrow();
  });
});
