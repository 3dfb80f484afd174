import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/navigil.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const INDICATION = '01004300040020000000f60203080200e7cd0f510c0000003b00000000000000';
const POSITION_2 = '0100b3000f0024000000f4a803080200ca0c1151ef8885f0b82e6d130400c00403000000';
// server time in the acknowledgement: NOW in seconds + 25 leap seconds, little-endian
const SERVER_TIME = Buffer.alloc(4);
SERVER_TIME.writeUInt32LE(NOW / 1000 + 25);

// The acknowledgement layout (message 255, the server's own sequence, CRC-16/CCITT-FALSE of the data, the
// acknowledged sequence and status 0) follows the open-source server that documents this protocol; no
// vendor document confirms it.
describe('navigil replies', () => {
  it('acknowledges a message with its sequence, counting its own sequence per connection', () => {
    const c = ctx();
    expect(protocol.decode!(Buffer.from(INDICATION, 'hex'), c).reply!.toString('hex')).toBe(`01000100ff00180000008071${'00000000'}${SERVER_TIME.toString('hex')}43000000`);
    expect(protocol.decode!(Buffer.from(POSITION_2, 'hex'), c).reply!.toString('hex')).toBe(`01000200ff0018000000cdee${'00000000'}${SERVER_TIME.toString('hex')}b3000000`);
  });
  it('sends nothing back when flags bit 0 asks for no acknowledgement', () => {
    const noAck = Buffer.from(POSITION_2, 'hex');
    noAck[8] = 1;
    expect(protocol.decode!(noAck, ctx()).reply).toBeUndefined();
  });
});

describe('navigil decoding', () => {
  it('reads position report 2, its time 25 leap seconds ahead of UTC', () => {
    expect(protocol.decode!(Buffer.from(POSITION_2, 'hex'), ctx()).records).toEqual([
      { time: Date.UTC(2013, 1, 5, 13, 44, 17), lat: -25.9684113, lng: 32.5922488, speed: 0, valid: true, satellites: 4, attributes: { odometer: 3, index: 179 } },
    ]);
  });
  it('refuses a message whose data does not match its CRC', () => {
    const bad = Buffer.from(POSITION_2, 'hex');
    bad[30] ^= 1;
    expect(() => protocol.decode!(bad, ctx())).toThrow('bad CRC');
  });
  it('keeps only the identity of other messages', () => {
    const r = protocol.decode!(Buffer.from(INDICATION, 'hex'), ctx());
    expect(r.deviceId).toBe('133123');
    expect(r.records).toBeUndefined();
  });
  it('frames on the length in the header, dropping a preamble', () => {
    const bytes = Buffer.from(POSITION_2, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.concat([Buffer.from('f6f57724', 'hex'), bytes]))).toEqual({ frame: bytes, consumed: bytes.length + 4 });
    expect(framer.next(bytes.subarray(0, 30))).toBeNull();
  });
});
