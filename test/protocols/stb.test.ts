import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/stb.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const LOGIN = '{"devId":"CHZD08KPD0210425046","devType":2,"msgType":110,"txnNo":"1625212741537"}';

// The answer (`msgType` + 1, `result` 1, the message's `txnNo`) follows the open-source server's
// implementation; no public STB document confirms it.
describe('stb replies', () => {
  it('answers a login with msgType 111 and its transaction number', () => {
    const r = protocol.decode!(Buffer.from(LOGIN), ctx());
    expect(r.deviceId).toBe('CHZD08KPD0210425046');
    expect(JSON.parse(r.reply!.toString())).toEqual({ msgType: 111, devId: 'CHZD08KPD0210425046', result: 1, txnNo: '1625212741537' });
  });
});

describe('stb decoding', () => {
  it('places properties at the reported location, hemisphere from the location type', () => {
    const msg = { msgType: 310, devId: 'X', txnNo: '1', attrList: [{ id: '01101001', value: '4' }, { id: '01102001', value: '39.3' }, { id: '01103001', value: '6.8' }, { id: '01118001', value: '31.5' }, { doorId: '2', id: '02104001', value: '0' }] };
    const [p] = protocol.decode!(Buffer.from(JSON.stringify(msg)), ctx()).records!;
    expect(p).toMatchObject({ valid: true, lat: -6.8, lng: -39.3, attributes: { deviceTemp: 31.5, id02104001Door2: '0' } });
  });
  it('frames one JSON object, braces in strings included', () => {
    const f = protocol.createFramer!().next(Buffer.from(`\r\n{"a":"}{","b":{"c":1}}{"d"`));
    expect(f?.frame.toString()).toBe('{"a":"}{","b":{"c":1}}');
    expect(protocol.createFramer!().next(Buffer.from('{"a":{"b":1}'))).toBeNull();
  });
});
