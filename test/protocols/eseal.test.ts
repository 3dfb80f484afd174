import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/eseal.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config, session: {} });
const NORMAL = '##S,eSeal,1000821,256,3.0.6,Normal,34,2017-08-31,08:14:40,15,A,25.708828N 100.372870W,10,0,Close,0.71,0:0:3:0,3.8,-73,E##';
const STARTUP = '##S,eSeal,1000821,256,3.0.6,Startup,1,2017-08-31,02:01:19,3,V,0.000000N 0.000000E,0,0,Close,3.25,0:0:5:0,3.8,-93,E##';

// The acknowledgements (`<header><type> ACK,<index>[,<config>],E##\r\n`) follow the open-source server's
// implementation; no public eSeal document confirms them.
describe('eseal replies', () => {
  it('acknowledges a report with its type and index', () => {
    expect(protocol.decode!(Buffer.from(NORMAL), ctx()).reply?.toString()).toBe('##S,eSeal,1000821,256,3.0.6,Normal ACK,34,E##\r\n');
  });
  it('sends the configured settings with the startup acknowledgement', () => {
    expect(protocol.decode!(Buffer.from(STARTUP), ctx({ config: '180,30,30,16' })).reply?.toString()).toBe('##S,eSeal,1000821,256,3.0.6,Startup ACK,1,180,30,30,16,E##\r\n');
  });
  it('answers nothing to acknowledgements of the device', () => {
    expect(protocol.decode!(Buffer.from('##S,eSeal,1000898,256,3.0.6,RC-NFC DEL ACK,,E##'), ctx())).toEqual({ deviceId: '1000898' });
  });
});

describe('eseal decoding and commands', () => {
  it('decodes the fix, door and battery', () => {
    const [p] = protocol.decode!(Buffer.from(NORMAL), ctx()).records!;
    expect(p).toMatchObject({ valid: true, lat: 25.708828, lng: -100.37287, course: 10, speed: 0 });
    expect(p.attributes).toMatchObject({ index: 34, door: false, battery: 3.8, rssi: -73 });
  });
  it('encodes unlock', () => {
    expect(protocol.encode!({ type: 'alarmDisarm', attributes: {} }, { deviceId: '1000821', now: 0, config: {} }).toString()).toBe('##S,eSeal,1000821,256,3.0.8,RC-Unlock,E##');
  });
  it('frames ##S..E##', () => {
    expect(protocol.createFramer!().next(Buffer.from(`\r\n${NORMAL}##S`))?.frame.toString()).toBe(NORMAL);
  });
});
