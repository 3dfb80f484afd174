import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dmt.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const hex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const OLD_HELLO = '0255003300001b00003335333232393032373533393235310038393931353030303030303030313330343539340000000403041910780603';
const HELLO = '025500310038f90100333533333233303831363639373330003839363130313835303031383234383434363330002202010900000000';
const RECORD = '0255043d003d004746000096d684020b001502d48402f043f4ec2a6909452b001f00050011230302080000000000000a00060f041d0001fe0f021e0005000003bf08';
const FIXED64 = '02551040000eaca40d00d2b8e562c51f9912f39a6bee00007e420091090903070100000000008b1065360000000000007fd401c4fcf2feffffffffffffffffee0000003f1b';
// Seconds from 2013-01-01 to 2025-02-22 01:02:03 UTC, little-endian.
const NOW_2013 = Buffer.alloc(4);
NOW_2013.writeUInt32LE((NOW - Date.UTC(2013, 0, 1)) / 1000);

describe('dmt replies', () => {
  it('answers a hello with the server time (seconds since 2013) and flags 0; a refused device gets flags 1', () => {
    const c = ctx();
    const r = hex(HELLO, c);
    expect(r.deviceId).toBe('353323081669730');
    expect(r.reply?.toString('hex')).toBe(`0255010800${NOW_2013.toString('hex')}00000000`);
    expect(protocol.refuse!(c)?.toString('hex')).toBe(`0255010800${NOW_2013.toString('hex')}01000000`);
  });
  it('answers the older 51-byte hello with five zero bytes', () => {
    const r = hex(OLD_HELLO);
    expect(r.deviceId).toBe('353229027539251');
    expect(r.reply?.toString('hex')).toBe('02550105000000000000');
  });
  it('confirms a commit with success, and answers both canned requests', () => {
    expect(hex('0255050000').reply?.toString('hex')).toBe('025506010001');
    expect(hex('0255140000').reply?.toString('hex')).toBe(`0255150c00${'00'.repeat(12)}`);
    expect(hex('0255220000').reply?.toString('hex')).toBe('0255230000');
  });
  it('sends nothing for data records (the commit that follows them is answered)', () => {
    expect(hex(RECORD).reply).toBeUndefined();
  });
});

describe('dmt decoding', () => {
  it('a data record: GPS field (1e-7 degrees, cm/s), IO field, analog values', () => {
    const [f] = hex(RECORD).records!;
    expect(f).toMatchObject({ time: Date.UTC(2014, 4, 5, 2, 44, 18), lat: -31.9536144, lng: 115.824465, altitude: 43, course: 0, precision: 35, valid: true });
    expect(f.speed).toBeCloseTo(31 * 0.036, 9);
    expect(f.attributes).toEqual({ index: 17991, event: 11, pdop: 1.7, ignition: false, input: 0, output: 0, status: 10, rssi: 29, battery: 4.094, power: 0.3, solarPower: 0, deviceTemp: 22.39 });
  });
  it('64-byte records: packed date, coordinates, IO, analog inputs', () => {
    const [f] = hex(FIXED64).records!;
    expect(f.time).toBeGreaterThan(Date.UTC(2010, 0, 1));
    expect(f.attributes).toHaveProperty('adc5');
    expect(f.attributes).toHaveProperty('pdop');
  });
});

describe('dmt framer', () => {
  it('cuts frames by the little-endian length', () => {
    const commit = Buffer.from('0255050000', 'hex');
    expect(protocol.createFramer!().next(Buffer.concat([commit, commit]))).toEqual({ frame: commit, consumed: 5 });
    expect(protocol.createFramer!().next(Buffer.from(HELLO, 'hex').subarray(0, 20))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.from('0355050000', 'hex'))).toThrow(FrameError);
  });
});
