import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/dualcam.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);

describe('dualcam replies', () => {
  it('answers the init by requesting the front photo the settings announce', () => {
    const r = decode('000000050001403a4abaa31444000400');
    expect(r.deviceId).toBe(String(0x0001403a4abaa314n));
    expect(r.reply?.toString('hex')).toBe(`00080007${Buffer.from('%photof').toString('hex')}`);
  });
  it('asks for the path when settings bit 25 is set, then requests that file', () => {
    expect(decode('000000050001403a4abaa31402000000').reply?.toString('hex')).toBe('000c00020000');
    const path = '000d001e64736d2f706963747572652f3233313032302f3233313435322e6a706700';
    expect(decode(path).reply?.toString('hex')).toBe(`0008001e${path.slice(8)}`);
  });
  it('answers start with resume from packet 1, and the completed file with 0009', () => {
    const c = ctx();
    expect(decode('00010006000000020000', c).reply?.toString('hex')).toBe('0002000400000001');
    expect(decode('00040006aabbccdd0000', c).records).toBeUndefined();
    const done = decode('00040004eeff0000', c);
    expect(done.reply?.toString('hex')).toBe('0009');
    expect(done.media).toEqual([{ record: 0, attribute: 'image', data: Buffer.from('aabbccddeeff', 'hex'), extension: 'jpg' }]);
    expect(done.records![0].attributes).toEqual({ image: '' });
  });
});

describe('dualcam framer', () => {
  const next = (hex: string) => protocol.createFramer!().next(Buffer.from(hex, 'hex'));
  it('takes 16 bytes for init, else 4 + the length', () => {
    expect(next('000000050001403a4abaa3144400040000')?.frame.length).toBe(16);
    expect(next('0003000400000001ff')?.frame.toString('hex')).toBe('0003000400000001');
    expect(next('000300040000')).toBeNull();
    expect(() => next('ffff0000')).toThrow(FrameError);
  });
});
