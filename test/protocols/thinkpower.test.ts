import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/thinkpower.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);
const LOGIN = '0103002c01020f38363737333030353038323030343606544c3930344111522d312e302e31372e32303231303431300011c3';

// The answer types (0x02/0x04/0x06 with the request's index) follow the open-source server's
// implementation; their CRC is the CRC-16/CCITT-FALSE the captured device frames carry.
describe('thinkpower', () => {
  it('answers the login, the heartbeat and a record report with the index and a CRC', () => {
    const c = ctx();
    const login = decode(LOGIN, c);
    expect(login.deviceId).toBe('867730050820046');
    expect(login.reply?.toString('hex')).toBe('0203000100fd62');
    expect(decode('03040000c3dc', c)).toEqual({ reply: Buffer.from('0404000092f1', 'hex') });
    const r = decode('05300012016099e995010d743cc943eb481500000000eed4', c);
    expect(r.reply?.toString('hex')).toBe('0630000066fc');
    expect(r.records).toEqual([{ time: Date.UTC(2021, 4, 11, 2, 19, 1), valid: true, lat: 22.5721545, lng: 113.9492885, speed: 0, course: 0, attributes: {} }]);
  });

  it('reads sign-and-magnitude coordinates, alarms and battery; a report without a location takes the last fix', () => {
    const c = ctx();
    const r = decode('05010018016099e99501' + '8d743cc9' + 'c3eb4815' + '0064' + '2328' + '1001' + '120025' + '0000', c);
    expect(r.records![0]).toMatchObject({ lat: -22.5721545, lng: -113.9492885, speed: 10, course: 90, attributes: { alarm: 'sos', battery: 3.7 } });
    const next = decode('05000007016099e768020162d8', c);
    expect(next.records![0]).toMatchObject({ lat: -22.5721545, valid: false });
  });

  it('frames by the length at offset 2 plus the CRC', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from('030400', 'hex'))).toBeNull();
    expect(framer.next(Buffer.from('03040000c3dc05', 'hex'))?.frame.toString('hex')).toBe('03040000c3dc');
  });
});
