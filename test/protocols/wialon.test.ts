import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/wialon.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2024, 0, 1);
const ctx = (deviceId?: string): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (text: string, c = ctx('42001300083')) => protocol.decode!(Buffer.from(text, 'utf8'), c);
const reply = (text: string, c?: DecodeContext) => decode(text, c).reply?.toString('utf8');

describe('wialon replies', () => {
  it('answers logins of both versions with #AL#1 and takes the identity', () => {
    expect(decode('#L#2.0;42001300083;;CE45', ctx())).toEqual({ deviceId: '42001300083', reply: Buffer.from('#AL#1\r\n') });
    expect(decode('#L#123456789012345;test', ctx()).deviceId).toBe('123456789012345');
  });

  it('rejects a login without identity with #AL#0', () => {
    expect(decode('#L#NA;NA', ctx())).toEqual({ reply: Buffer.from('#AL#0\r\n') });
  });

  it('answers data, short data, ping and black box packets', () => {
    expect(reply('#SD#270413;205601;5544.6025;N;03739.6834;E;1;2;3;4')).toBe('#ASD#1\r\n');
    expect(reply('#D#021214;065947;2237.7552;N;11404.8851;E;0.000;;170.9;5;1.74;NA;NA;NA;NA;NA')).toBe('#AD#1\r\n');
    expect(reply('#P#')).toBe('#AP#\r\n');
    const two = '#B#080914;073235;5027.50625;N;03026.19321;E;0.700;0.000;NA;4;NA;NA;NA;;NA;a:1:1|080914;073420;5027.50845;N;03026.18854;E;1.996;292.540;NA;4;NA;NA;NA;;NA;a:1:2';
    expect(reply(two)).toBe('#AB#2\r\n');
  });

  it('checks the 2.0 checksum and answers a mismatch with the CRC error code', () => {
    const good = '#SD#300924;154245;5554.350052;N;3644.670410;E;2.92;NA;NA;NA;7A01';
    expect(reply(good)).toBe('#ASD#1\r\n');
    const bad = decode(good.replace('7A01', '7A02'));
    expect(bad.reply?.toString()).toBe('#ASD#13\r\n');
    expect(bad.records).toBeUndefined();
    expect(reply('#D#220323;114150;2234.80479;N;11354.87786;E;0;NA;59;11;NA;NA;NA;;NA;d_battr:1:94;E7C9')).toBe('#AD#16\r\n');
  });

  it('answers a bad time with code 0', () => {
    expect(reply('#SD#320413;205601;5544.6025;N;03739.6834;E;1;2;3;4')).toBe('#ASD#0\r\n');
  });

  it('turns a driver message into a result record and answers #AM#1', () => {
    const r = decode('#M#Hello dispatcher');
    expect(r.reply?.toString()).toBe('#AM#1\r\n');
    expect(r.records?.[0].attributes.result).toBe('Hello dispatcher');
  });

  it('takes the identity from the UDP prefix', () => {
    const r = decode('2.0;99999999#SD#270413;205601;5544.6025;N;03739.6834;E;1;2;3;4', ctx());
    expect(r.deviceId).toBe('99999999');
    expect(r.records).toHaveLength(1);
  });
});

describe('wialon values', () => {
  it('decodes a fix: NMEA degrees, km/h, course, altitude, satellites, hdop', () => {
    const [r] = decode('#D#101118;061143;0756.0930;N;12338.6403;W;18.223;99.766;-4.000;10;0.800;NA;NA;NA;NA;NA').records!;
    expect(r.time).toBe(Date.UTC(2018, 10, 10, 6, 11, 43));
    expect(r.lat).toBeCloseTo(7 + 56.093 / 60, 9);
    expect(r.lng).toBeCloseTo(-(123 + 38.6403 / 60), 9);
    expect(r).toMatchObject({ speed: 18.223, course: 99.766, altitude: -4, satellites: 10, hdop: 0.8, valid: true });
  });

  it('types params and maps the well-known ones', () => {
    const [r] = decode('#D#NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;3;1;12.5,0.2;ABC123;SOS:1:1,temp:3:18,bat:3:99,pwr_ext:2:12.81,hw:3:V4.5,motion:3:false,accuracy:2:7.5').records!;
    expect(r.attributes).toMatchObject({ input: 3, output: 1, adc1: 12.5, adc2: 0.2, driverUniqueId: 'ABC123', alarm: 'sos', deviceTemp: 18, batteryLevel: 99, power: 12.81, hw: 'V4.5', motion: false });
    expect(r.precision).toBe(7.5);
    expect(r.lat).toBeUndefined();
    expect(r.time).toBe(NOW);
  });

  it('collects complete cell towers', () => {
    const [r] = decode('#D#NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;;NA;mcc:1:250,mnc:1:01,lac:1:7,cell_id:1:99').records!;
    expect(r.cells).toEqual([{ mcc: 250, mnc: 1, lac: 7, cid: 99 }]);
  });
});

describe('wialon framer', () => {
  const framer = () => protocol.createFramer!();

  it('waits for the line end and cuts one packet per line', () => {
    expect(framer().next(Buffer.from('#P'))).toBeNull();
    const chunk = Buffer.from('#P#\r\n#L#1;NA\r\n');
    const first = framer().next(chunk)!;
    expect(first).toEqual({ frame: Buffer.from('#P#'), consumed: 5 });
    expect(framer().next(chunk.subarray(first.consumed))!.frame.toString()).toBe('#L#1;NA');
  });

  it('keeps photo data with its header', () => {
    const stream = Buffer.concat([Buffer.from('#I#4;0;0;010124;120000;a.jpg\r\n'), Buffer.from([0, 1, 0x0a, 3]), Buffer.from('#P#\r\n')]);
    expect(framer().next(stream.subarray(0, 33))).toBeNull();
    const f = framer().next(stream)!;
    expect(f.consumed).toBe(stream.length - 5);
    expect(protocol.decode!(f.frame, ctx('1')).reply?.toString()).toBe('#AI#0;1\r\n');
  });

  it('rejects binary garbage and endless lines', () => {
    expect(() => framer().next(Buffer.from([0x00, 0xff, 0x0a]))).toThrow(FrameError);
    expect(() => framer().next(Buffer.alloc(protocol.maxFrameSize + 1, 0x41))).toThrow(FrameError);
  });
});

describe('wialon commands', () => {
  const enc = { deviceId: '1', now: NOW, config: {} };
  it('sends chat text as #M#', () => {
    expect(protocol.encode!({ type: 'message', attributes: { message: 'Привет' } }, enc).toString('utf8')).toBe('#M#Привет\r\n');
  });
  it('sends custom data as a line', () => {
    expect(protocol.encode!({ type: 'custom', attributes: { data: '#UC#x' } }, enc).toString()).toBe('#UC#x\r\n');
  });
  it('refuses unknown commands', () => {
    expect(() => protocol.encode!({ type: 'engineStop', attributes: {} }, enc)).toThrow();
  });
});
