import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/nvs.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const LOGIN = '0012333537303430303630303137383234312e38';
const DATA =
  'cccccccc0073000144b9ddf2aca002015694823d1f165d80902139a44f00aa001e1400000103000a080115001a001d001e0141004001f00065001301061600001700001800004231da430000440000085000000000480000000049000000004a0000000047ffffffff6900000004c700000000e10000000100954a';

// `OK` and `NO01` are the login answers of the open-source server that documents this protocol; no vendor
// document confirms them.
describe('nvs replies', () => {
  it('answers a login OK', () => {
    expect(decode(LOGIN)).toEqual({ deviceId: '357040060017824', reply: Buffer.from('OK') });
  });
  it('refuses an unknown device with NO01', () => {
    expect(protocol.refuse!(ctx())!.toString()).toBe('NO01');
  });
  it('sends nothing back to data', () => {
    expect(decode(DATA).reply).toBeUndefined();
  });
});

describe('nvs decoding', () => {
  it('reads the records of a data frame with their IO elements', () => {
    const r = decode(DATA);
    expect(r.deviceId).toBe('357040060017824');
    expect(r.records).toHaveLength(1);
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2016, 0, 12, 4, 34, 5), lng: 37.5226512, lat: 55.7425743, altitude: 170, course: 30, satellites: 20, speed: 0, valid: true });
    expect(r.records![0].attributes).toMatchObject({ event: 31, io8: 1, io66: 12762, io71: 4294967295, io225: 1 });
  });
  it('frames logins and data frames on their lengths', () => {
    const framer = protocol.createFramer!();
    const login = Buffer.from(LOGIN, 'hex');
    const data = Buffer.from(DATA, 'hex');
    expect(framer.next(Buffer.concat([login, data]))).toEqual({ frame: login, consumed: login.length });
    expect(framer.next(Buffer.concat([data, login]))).toEqual({ frame: data, consumed: data.length });
    expect(framer.next(data.subarray(0, 50))).toBeNull();
    expect(() => framer.next(Buffer.from('41424344454647', 'hex'))).toThrow();
  });
});
