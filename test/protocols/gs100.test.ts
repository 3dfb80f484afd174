import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gs100.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId: '862462032506700' });
const LOGIN = '474c490f383632343632303332353036373030133839333831303131363039313838343837323546084657312e302e3236';
const DATA = '47440216900000064113030417020236402c452286650051929716900000064115030417020236408c4522866800379020';
const decode = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);

describe('gs100 replies', () => {
  // Not confirmed by a public document: GS100 to the login and GS100 + the record count to data, as the widely
  // used open-source server answers.
  it('answers the login with GS100 and data with GS100 and the count', () => {
    expect(decode(LOGIN)).toEqual({ deviceId: '862462032506700', reply: Buffer.from('GS100') });
    expect(decode(DATA).reply!.toString('hex')).toBe(Buffer.from('GS100').toString('hex') + '02');
  });
});

describe('gs100 decoding', () => {
  it('reads the fixes of a data message', () => {
    const records = decode(DATA).records!;
    expect(records[0]).toEqual({ attributes: { status: 0x900000 }, time: Date.UTC(2017, 3, 3, 6, 41, 13), valid: true, lng: 20.394003333333334, lat: 45.38110833333333, speed: 5.19, course: 297 });
    expect(records).toHaveLength(2);
  });
  it('places a record without a fix at the last fix', () => {
    const c = ctx();
    decode(DATA, c);
    const [r] = decode('4744010310000000', c).records!;
    expect(r).toMatchObject({ valid: false, lat: 45.38111333333333, attributes: { status: 0x100000 } });
  });
  it('frames a login as what arrived once its IMEI is whole, data by its record lengths', () => {
    expect(protocol.createFramer!().next(Buffer.from(LOGIN, 'hex'))!.consumed).toBe(LOGIN.length / 2);
    expect(protocol.createFramer!().next(Buffer.from(LOGIN.slice(0, 20), 'hex'))).toBeNull();
    expect(protocol.createFramer!().next(Buffer.from(DATA + '47', 'hex'))!.consumed).toBe(DATA.length / 2);
  });
});
