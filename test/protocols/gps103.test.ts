import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gps103.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());
const encode = (type: string, attributes: Record<string, string | number> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();

describe('gps103 replies', () => {
  it('answers a login with LOAD and learns the IMEI', () => {
    const r = decode('##,imei:359586015829802,A;');
    expect(r.deviceId).toBe('359586015829802');
    expect(r.reply?.toString()).toBe('LOAD');
    expect(r.records).toBeUndefined();
  });
  it('answers a heartbeat with ON', () => {
    const r = decode('359586015829802');
    expect(r.reply?.toString()).toBe('ON');
    expect(r.deviceId).toBe('359586015829802');
  });
  it('acknowledges an SOS report and sends nothing for a plain report', () => {
    expect(decode('imei:359586015829802,help me,0809231429,13554900601,F,062947.294,A,2234.4026,N,11354.3277,E,0.00,').reply?.toString()).toBe(
      '**,imei:359586015829802,E;',
    );
    expect(decode('imei:359710045559474,tracker,151030080103,,F,000101.000,A,5443.3834,N,02512.9071,E,0.00,0;').reply).toBeUndefined();
  });
});

describe('gps103 decoding', () => {
  it('decodes a fix with the time zone taken from local vs UTC time', () => {
    const [r] = decode('imei:359710049092324,tracker,151027025958,,F,235957.000,A,2429.5156,N,04424.5828,E,10.00,27.91,,0,0,,,;').records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-10-26T23:59:57.000Z');
    expect(r.lat).toBeCloseTo(24.49193, 5);
    expect(r.lng).toBeCloseTo(44.40971, 5);
    expect(r.speed).toBeCloseTo(18.52, 6); // 10 knots
    expect(r.course).toBe(27.91);
    expect(r.attributes).toMatchObject({ ignition: false, door: false });
  });
  it('accepts the hemisphere before the value', () => {
    const [r] = decode('imei:353552045403597,tracker,150420050648,53.0,F,0.0,A,N,5306.64155,E,00700.77848,0.0,,1.0,;').records!;
    expect(r.lat).toBeCloseTo(53.110693, 5);
    expect(r.lng).toBeCloseTo(7.012975, 5);
    expect(r.altitude).toBe(1);
  });
  it('decodes keyword attributes: temperature, fuel, alarms', () => {
    const [t] = decode('imei:353451044508750,T:+28.0,0809231929,,F,055403.000,A,2233.1870,N,11354.3067,E,0.00,,;').records!;
    expect(t.attributes).toMatchObject({ alarm: 'temperature', temp1: 28 });
    const [f] = decode('imei:353451044508750,001,0809231929,13554900601,F,055403.000,A,2233.1870,N,11354.3067,E,0.00,30.1,65.43,1,0,10.5%,0.0%,28;').records!;
    expect(f.attributes).toMatchObject({ fuel1: 10.5, fuel2: 0, temp1: 28, ignition: true });
    expect(f.altitude).toBe(65.43);
  });
  it('turns an L report into a cell tower record', () => {
    const [r] = decode('imei:864895030279986,ac alarm,180404174252,,L,,,296a,,51f7,,,').records!;
    expect(r.lat).toBeUndefined();
    expect(r.cells).toEqual([{ mcc: 0, mnc: 0, lac: 0x296a, cid: 0x51f7 }]);
    expect(r.attributes.alarm).toBe('powerCut');
  });
  it('decodes OBD data with units', () => {
    const [r] = decode('imei:862106025092216,OBD,170605095949,195874,,370.8,808,066,30.0%,+87,13.0%,02444,14.3,P0137,P0430,,;').records!;
    expect(r.attributes).toMatchObject({
      odometer: 195874,
      fuelConsumption: 370.8,
      hours: 808 * 3_600_000,
      obdSpeed: 66,
      engineLoad: 30,
      coolantTemp: 87,
      throttle: 13,
      rpm: 2444,
      battery: 14.3,
      dtcs: 'P0137 P0430',
    });
  });
  it('decodes the alternative format in decimal degrees and km/h', () => {
    const [r] = decode('imei:861359038609986,Equipo 1,---,------,----,214734,241018,26,1,-33.42317,-70.61930,067,229,0674,1.00,08,0,1,---,*').records!;
    expect(new Date(r.time!).toISOString()).toBe('2018-10-24T21:47:34.000Z');
    expect(r).toMatchObject({ lat: -33.42317, lng: -70.6193, speed: 67, course: 229, altitude: 674, hdop: 1, satellites: 8 });
  });
});

describe('gps103 framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s));
  it('cuts at ; and * and skips line breaks', () => {
    expect(next('\r\nimei:1,tracker;imei:2')).toEqual({ frame: Buffer.from('imei:1,tracker'), consumed: 17 });
    expect(next('imei:1,x,---,*\r\n')?.frame.toString()).toBe('imei:1,x,---,');
  });
  it('waits for the delimiter', () => {
    expect(next('imei:359586015829802,tracker,0809')).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('x'.repeat(5000))).toThrow(FrameError);
  });
});

describe('gps103 commands', () => {
  it('encodes the letter commands', () => {
    expect(encode('engineStop')).toBe('**,imei:123456789012345,J');
    expect(encode('positionSingle')).toBe('**,imei:123456789012345,B');
    expect(encode('positionPeriodic', { frequency: 30 })).toBe('**,imei:123456789012345,C,30s');
    expect(encode('positionPeriodic', { frequency: 7200 })).toBe('**,imei:123456789012345,C,02h');
    expect(encode('custom', { data: 'H,080' })).toBe('**,imei:123456789012345,H,080');
  });
  it('refuses unknown commands', () => {
    expect(() => encode('message', { message: 'hi' })).toThrow();
  });
});
