import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/tramigo.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const BINARY = '0480001df35b1b69101a023ef34f0090436d38003200380e0000850081c0e4ff6d542f00000015000000050000000000007600a20100008f436d3800014400000000000000000021000a0006005a574a6169726f7320486972692043656e747265205072696d617279205363686f6f6c536f7574686572746f6e486172617265';
const TEXT = '8000c426b000a6000101c557037598050d5c8a595472616d69676f3a204d6f76696e672c20302e3132206b6d2045206f66204c617275742054696e2049736c616d6963205072696d617279205363686f6f6c2c2054616970696e672c20506572616b2c204d592c20342e38333134392c203130302e37333038352c204e572077697468207370656564203130206b6d2f682c2030303a34393a30382041756720392020454f46';
const PING = '80003d1ac0001c00010100000367152b13bc1d5970696e6720454f46';

describe('tramigo replies', () => {
  it('acknowledges a text report, and a ping, with gprs,ack,<serial>', () => {
    expect(decodeHex(TEXT).reply?.toString()).toBe('gprs,ack,50214');
    const ping = decodeHex(PING);
    expect(ping.reply?.toString()).toBe('gprs,ack,15642');
    expect(ping.records).toBeUndefined();
  });
  it('acknowledges a binary report with its header, FF, the serial and a CRC-16/CCITT-FALSE', () => {
    expect(decodeHex(BINARY).reply?.toString('hex')).toBe('041800bf595b1b69101a023ef34f0090436d38ff5b1b0000');
  });
});

describe('tramigo decoding', () => {
  it('a text report: coordinates, direction and speed from the text, time from the header', () => {
    const r = decodeHex(TEXT);
    expect(r.deviceId).toBe(String(0x03759805));
    expect(r.records![0]).toMatchObject({ valid: true, lat: 4.83149, lng: 100.73085, course: 315, speed: 10, time: Date.UTC(2017, 7, 9, 0, 49, 17) });
  });
  it('a binary report: the two-part id and the position block', () => {
    const r = decodeHex(BINARY);
    expect(r.deviceId).toBe('352625695239614');
    const [f] = r.records!;
    expect(f).toMatchObject({ valid: true, attributes: { index: 7003 } });
    expect(Math.abs(f.lat!)).toBeLessThanOrEqual(90);
  });
});

describe('tramigo framer', () => {
  it('takes the length where each kind keeps it; refuses impossible lengths', () => {
    const ping = Buffer.from(PING, 'hex');
    expect(protocol.createFramer!().next(Buffer.concat([ping, ping]))).toEqual({ frame: ping, consumed: ping.length });
    expect(protocol.createFramer!().next(ping.subarray(0, 22))).toBeNull();
    const bad = Buffer.from(ping);
    bad.writeUInt16LE(3, 6);
    expect(() => protocol.createFramer!().next(bad)).toThrow(FrameError);
  });
});
