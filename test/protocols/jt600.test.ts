import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/jt600.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const encode = (type: string, attributes: Record<string, string | number> = {}) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: NOW, config: {} }).toString();

/** A long-format frame (protocol version 0x16): one record; its status word is `status`. */
const long = (status: string, version = '16', tail = '') => `247560405553${version}110023111116003113261444360282107 91d016c0000001f0700000000${status}3c4f6d07d80c${tail}cf`.replace(' ', '');

describe('jt600 replies', () => {
  it('confirms U01, U02 and U03 with (S39) and the U06 alarm with (S20)', () => {
    for (const t of ['U01', 'U02', 'U03']) expect(decode(`(3301210003,${t},040812,185302,T,22.564025,N,113.242329,E,5,152,9,32%,00000000000011,10133,5173,22,100,1)`).reply?.toString()).toBe('(S39)');
    expect(decode('(3301210003,U06,1,040812,185302,T,22.564025,N,113.242329,E,5,152,9,32%,0000000000011,10133,5173,22,100,1,300,100,10)').reply?.toString()).toBe('(S20)');
  });
  it('confirms a padlock event (P45) with (P69,0,<index>)', () => {
    const r = decode('(2050018634,P45,051124,204046,9.861502,N,83.950336,W,A,1,0,1,1,0012260888,0,0,0)');
    expect(r.reply?.toString()).toBe('(P69,0,0)');
    expect(decode('(8000632862,P45,290322,132412,25.28217,S,57.54683,W,A,0,0,5,0,0000000000,0,0,9,0)').reply?.toString()).toBe('(P69,0,9)');
  });
  it('answers a binary frame only when its status asks (bit 5): (P35) before version 0x19, then (P69,0,<index>)', () => {
    expect(decodeHex(long('20c0')).reply).toBeUndefined();
    expect(decodeHex(long('00e0')).reply?.toString()).toBe('(P35)');
    const v19 = decodeHex(long('00e0', '19', '05000000'));
    expect(v19.reply?.toString()).toBe('(P69,0,207)');
    expect(v19.records![0].attributes.geofence).toBe(5);
  });
  it('sends nothing for W01 and for frames it does not decode, which still name the device', () => {
    expect(decode('(3110312099,W01,11404.6204,E,2232.9961,N,A,040511,063736,4,7,100,4,17,1,1,company)').reply).toBeUndefined();
    expect(decode('(3460311327,@JT)')).toEqual({ deviceId: '3460311327' });
  });
});

describe('jt600 decoding', () => {
  it('long binary format: BCD time and position, flags, odometer, status, battery, cell', () => {
    const r = decodeHex(long('20c0'));
    expect(r.deviceId).toBe('7560405553');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2016-11-11T00:31:13.000Z');
    expect(f.lat).toBeCloseTo(-(26 + 14.4436 / 60), 6);
    expect(f.lng).toBeCloseTo(28 + 21.0791 / 60, 6);
    expect(f).toMatchObject({ valid: true, speed: 1.852, course: 216, satellites: 7, cells: [{ mcc: 0, mnc: 0, cid: 0x4f6d, lac: 0x07d8, rssi: 12 }] });
    expect(f.attributes).toEqual({ odometer: 31000, blocked: true, status: 0x20c0, batteryLevel: 60 });
  });
  it('short binary format version 2, several records: fuel, status bytes, odometer', () => {
    const r = decodeHex('24624090196123019519071703412131285623074214252f10560000130801000076850819071703420631282832074215165f172c0000030801000076850919071703422131282792074216635f222e0000130801000076850919071703423631282808');
    expect(r.deviceId).toBe('6240901961');
    expect(r.records).toHaveLength(3);
    expect(r.records![0]).toMatchObject({ valid: true, speed: 10 * 1.852, course: 172, attributes: { ignition: false, door: false, charge: true, blocked: true, alarm: 'overspeed', odometer: 30341000, fuel: 8 } });
  });
  it('the sample with known values', () => {
    const [f] = decodeHex('24311021600111001b16021105591022329862114046227b0598095080012327951435161f').records!;
    expect(new Date(f.time!).toISOString()).toBe('2011-02-16T05:59:10.000Z');
    expect(Math.abs(f.lat! - 22.54977)).toBeLessThan(1e-5);
    expect(Math.abs(f.lng! + 114.07705)).toBeLessThan(1e-5);
  });
  it('U01: mph to km/h, status bits, odometer in km, cell and index', () => {
    const [f] = decode('(3460311327,U01,220916,135251,T,9.552607,N,13.658292,W,0.31,0,9,0%,00001001000000,11012,10,27,0,0,33)').records!;
    expect(f).toMatchObject({ lat: 9.552607, lng: -13.658292, valid: true, satellites: 9, course: 0, cells: [{ cid: 11012, lac: 10, rssi: 27 }] });
    expect(f.speed).toBeCloseTo(0.31 * 1.609344, 9);
    expect(f.attributes).toMatchObject({ batteryLevel: 0, status: 0b1001000000, odometer: 0, index: 0 });
  });
  it('W01: longitude first, speed in km/h', () => {
    const [f] = decode('(3110312099,W01,11404.6204,E,2232.9961,N,A,040511,063736,4,7,100,4,17,1,1,company)').records!;
    expect(f.lat).toBeCloseTo(22.54994, 5);
    expect(f.lng).toBeCloseTo(114.07701, 5);
    expect(f).toMatchObject({ speed: 4, course: 7, valid: true, attributes: { power: 100, rssi: 17, alertType: 1 } });
  });
  it('P45 carries the RFID card as driverUniqueId', () => {
    const [f] = decode('(2050018634,P45,051124,204046,9.861502,N,83.950336,W,A,1,0,1,1,0012260888,0,0,0)').records!;
    expect(f.attributes).toMatchObject({ driverUniqueId: '0012260888', eventSource: 1 });
  });
  it('a wireless temperature sensor report (WLNET,5)', () => {
    const [f] = decodeHex('28373530303331333630392c32332c32392c574c4e45542c352c322c22071916311822350966113549495e1f232207191622591190702002fe0117623c0101134700000029').records!;
    expect(f.attributes).toMatchObject({ temp1: 27.5, sensorBatteryLevel: 0x62 });
  });
  it('refuses a frame with another marker', () => {
    expect(() => decodeHex('4142')).toThrow(DecodeError);
  });
});

describe('jt600 framer', () => {
  it('cuts text frames at ) and un-escapes 3D pairs', () => {
    const f = protocol.createFramer!().next(Buffer.from('(123,3d15x3d14,3d11,3d00)(next', 'latin1'));
    expect(f?.frame.toString('latin1')).toBe('(123,3d15x3d14,3d11,3d00)');
    const raw = Buffer.concat([Buffer.from('(1234567890,'), Buffer.from([0x3d, 0x15, 0x3d, 0x14, 0x3d, 0x11, 0x3d, 0x00]), Buffer.from(')(')]);
    const g = protocol.createFramer!().next(raw)!;
    expect(g.frame.toString('latin1')).toBe('(1234567890,(),=)');
    expect(g.consumed).toBe(raw.length - 1);
  });
  it('takes the binary length from the header; waits for more; refuses other starts', () => {
    const frame = Buffer.from(long('20c0'), 'hex');
    expect(protocol.createFramer!().next(Buffer.concat([frame, frame]))?.frame).toEqual(frame);
    expect(protocol.createFramer!().next(frame.subarray(0, 20))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.from('hello world!'))).toThrow(FrameError);
  });
});

describe('jt600 commands', () => {
  it('encodes engine, time zone, reboot and custom commands', () => {
    expect(encode('engineStop')).toBe('(S07,0)');
    expect(encode('engineResume')).toBe('(S07,1)');
    expect(encode('setTimezone', { timezone: 'GMT+4' })).toBe('(S09,1,240)');
    expect(encode('setTimezone', { timezone: '-05:30' })).toBe('(S09,1,-330)');
    expect(encode('rebootDevice')).toBe('(S17)');
    expect(encode('custom', { data: 'S71,30' })).toBe('(S71,30)');
  });
});
