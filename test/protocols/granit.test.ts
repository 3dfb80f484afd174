import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/granit.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (h: string, id?: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx(id));
const CURRENT = '2b525243427e1a00c500ec904858b842283997e30002000000005e000000000d00002a3239';
const ARCHIVE = '2b444441547e84003e290401d01690737c57b8903c383c7fa0e5081b64006b000000001c0000b8803c388e7fe7e5102197006c000000001c0000b8813c38ad7f02e6042035006c000000001d0000b8813c38bf7f13e6001d1e006c000000001d0000b8813c38bf7f13e6001d00006c000000001d0000b8903c38977f34e6091065006c000000001e000014002a3932';

describe('granit replies', () => {
  // Checksum as the devices send theirs (XOR before '*', checked on the captures). Not confirmed by a public
  // document: the reply layouts (BB+UGRC~, BB+ARCF~), as the widely used open-source server sends them.
  it('answers a current position with BB+UGRC~ carrying its time and the device id', () => {
    const r = decode(CURRENT);
    expect(r.reply!.toString('latin1', 0, 8)).toBe('BB+UGRC~');
    expect(r.reply!.subarray(8, 16).toString('hex')).toBe('0600ec904858c500');
    expect(r.reply!.toString('latin1', 16)).toBe('*F9\r\n');
  });
  it('answers an archive with BB+ARCF~ carrying the pack number and the device id', () => {
    const r = decode(ARCHIVE);
    expect(r.reply!.toString('hex')).toBe(Buffer.concat([Buffer.from('BB+ARCF~'), Buffer.from('0400d0163e29', 'hex'), Buffer.from('*96\r\n')]).toString('hex'));
  });
});

describe('granit decoding', () => {
  it('reads a current position: id, time, hemispheres from the flags', () => {
    const r = decode(CURRENT);
    expect(r.deviceId).toBe('197');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2016-12-07T22:45:00.000Z');
    expect(f).toMatchObject({ valid: true, satellites: 4, altitude: 130, attributes: { pdop: 2, distance: 0, output: 0 } });
    expect(f.lat).toBeCloseTo(57.00853, 5);
  });
  it('reads every filled slot of an archive, spaced by the block increment', () => {
    const records = decode(ARCHIVE).records!;
    expect(records).toHaveLength(6);
    expect(records[1].time! - records[0].time!).toBe(20_000);
    expect(records.every((r) => r.attributes.archive === true)).toBe(true);
  });
  it('keeps a text answer as a result once the device is known', () => {
    expect(decode(Buffer.from('OK').toString('hex'), '197').records![0].attributes).toEqual({ result: 'OK' });
    expect(decode(Buffer.from('OK').toString('hex')).records).toBeUndefined();
  });
  it('encodes commands with the checksum', () => {
    expect(protocol.encode!({ type: 'rebootDevice', attributes: {} }, { deviceId: '197', now: 0, config: {} }).toString('latin1')).toBe('BB+RESET*7E\r\n');
  });
});
