import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/g1rus.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MIXED = 'f84604000d85f5e55298004b012ad7d524003d1d0f50726f6d61205361742031303030201556312e31302656312e312e340a03120fa0142b8475a157050401846dfc060175120a29a10d02440111002100310041005107d10ef8';
// A regular report (type 0x41: event byte present) with a location block: validity, lat/lon, speed, course, altitude.
const REGULAR = 'f846' + '41' + '000d85f5e55298' + '2ad7d524' + '07' + '0002' + '10' + '001f' + '52' + '02a5b3c0' + 'fd3b6b40' + '0032' + '005a' + 'ff9c' + '0000' + 'f8';

describe('g1rus replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MIXED, 'hex'), ctx()).reply).toBeUndefined();
  });
});

describe('g1rus decoding', () => {
  it('reads a regular report with its event and location', () => {
    expect(protocol.decode!(Buffer.from(REGULAR, 'hex'), ctx())).toEqual({
      deviceId: '014869007258264',
      records: [{ time: Date.UTC(2019, 7, 1, 17, 0, 26), satellites: 18, valid: true, lat: 44.413888, lng: -46.437568, speed: 50, course: 90, altitude: -100, attributes: { event: 7 } }],
    });
  });
  it('reads the device info of a mixed report; without a location block it is not valid at 0/0', () => {
    const [f] = protocol.decode!(Buffer.from(MIXED, 'hex'), ctx()).records!;
    expect(f).toMatchObject({ time: Date.UTC(2019, 7, 1, 17, 0, 26), lat: 0, lng: 0, valid: false, attributes: { versionFw: 'V1.10', versionHw: 'V1.1.4' } });
  });
  it('gives a report without a location block the last location of the connection', () => {
    const c = ctx();
    protocol.decode!(Buffer.from(REGULAR, 'hex'), c);
    expect(protocol.decode!(Buffer.from(MIXED, 'hex'), c).records![0]).toMatchObject({ lat: 44.413888, lng: -46.437568, valid: false });
  });
  it('frames between F8 bytes and restores the escaped 1B and F8', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from('00f801021b00031b3e04f8f8', 'hex'))).toEqual({ frame: Buffer.from('f801021b03f804f8', 'hex'), consumed: 11 });
    expect(framer.next(Buffer.from('f80102', 'hex'))).toBeNull();
  });
});
