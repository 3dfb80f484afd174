import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/mxt.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const POSITION = '01a631a7627b00087dc41c40850006aab70affecdf23fd32200080000600000000000000000000001b2ff03b1bb9c4c60214f40100050000006c2d0000f427600051051101de0704';

// The ACK layout (0x01, device, 0x02, id, the message's CRC, CRC-16/XMODEM, 0x04, escaped) follows the
// open-source server's implementation; no public Maxtrack document confirms it.
describe('mxt replies', () => {
  it('acknowledges a position with its id and CRC', () => {
    const r = protocol.decode!(Buffer.from(POSITION, 'hex'), ctx());
    expect(r.deviceId).toBe('8086183');
    expect(r.reply?.toString('hex')).toBe('01a602a7627b00de07520804');
  });
  it('escapes special bytes of the ACK', () => {
    // id 0x00000401 puts 0x01 and 0x04 into the body: each becomes 0x10, byte+0x20
    const msg = Buffer.from(POSITION, 'hex');
    msg.writeUInt32LE(0x0401, 3);
    const reply = protocol.decode!(msg, ctx()).reply!.toString('hex');
    expect(reply.startsWith('01a602102110240000de07')).toBe(true);
    expect(reply.endsWith('04')).toBe(true);
  });
});

describe('mxt decoding', () => {
  it('decodes time, position and the info groups', () => {
    const [p] = protocol.decode!(Buffer.from(POSITION, 'hex'), ctx()).records!;
    expect(new Date(p.time!).toISOString()).toBe('2021-09-23T08:21:00.000Z');
    expect(p).toMatchObject({ lat: -16.074838, lng: -47.980564, speed: 0, course: 0, satellites: 0 });
    expect(p.attributes).toMatchObject({ index: 7364, ignition: false, power: 11.628, temp1: 27, odometer: 46580921, hours: 7681200000 });
  });
});

describe('mxt framer', () => {
  it('cuts 0x01..0x04 and un-escapes 0x10', () => {
    const f = protocol.createFramer!().next(Buffer.from('ff01a6102131040102', 'hex'))!;
    expect(f.frame.toString('hex')).toBe('01a60131' + '04');
    expect(f.consumed).toBe(7);
    expect(protocol.createFramer!().next(Buffer.from('01a631', 'hex'))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.alloc(2000, 0x01))).toThrow(FrameError);
  });
});
