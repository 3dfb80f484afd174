import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/minifinder2.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);

const BARK = 'ab101c00d6f61e000110013836333932313033393939363038300937efd201640c000000';
const GPS = 'ab103d0035a700000110013836373733303035333430333237390924ac5783620103c250162030cc5f0d5002fb432d00af005a3158006d0a00000b0931ec5783620a000000';

describe('minifinder2 replies', () => {
  it('confirms data asking for an answer with a 0x7F success response carrying its index', () => {
    expect(decodeHex(BARK).reply?.toString('hex')).toBe('ab00030008c71e007f0100');
  });
  it('answers a time request (service 0x12) with the server time', () => {
    const r = decodeHex('ab101400594a01000310013836333932323033343437333734350112');
    expect(r.reply?.toString('hex')).toBe('ab00070037950100' + '0305120b22b967');
    expect(r.deviceId).toBe('863922034473745');
  });
  it('answers other services with an empty service message, and sends nothing when not asked', () => {
    expect(decodeHex('ab10150076f1320003100133353534363530373130323933303602105a').reply?.toString('hex')).toBe('ab0001006330320003');
    expect(decodeHex('ab00030008c700007f0100').reply).toBeUndefined();
  });
});

describe('minifinder2 decoding', () => {
  it('decodes time, status and the GNSS key', () => {
    const { deviceId, records } = decodeHex(GPS);
    expect(deviceId).toBe('867730053403279');
    expect(records).toHaveLength(1);
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2022-05-17T08:07:08.000Z');
    expect(r).toMatchObject({ valid: true, lat: 22.4382, lng: 114.05236, speed: 45, course: 175, satellites: 11 });
    expect(r.attributes).toMatchObject({ odometer: 2669, batteryLevel: 80 });
  });
  it('reads alarms, tags with descriptions and the bark counter', () => {
    const [r] = decodeHex(
      'ab104b00cab208010110013836323232313038373738303438310d24d0b71d6a0800f864000000000d0200100000d0b71d6a000000001c23c69b531448e06ed4e621e254cf084d696e6946696e646572204851',
    ).records!;
    expect(r.attributes).toMatchObject({ alarm: 'sos', tagId: 'e04814539bc6', description: 'MiniFinder HQ' });
    expect(r).toMatchObject({ valid: true, lat: 568775790 / 1e7 });
    expect(decodeHex(BARK).records![0].attributes.barkCount).toBe(12);
  });
  it('starts a new record when a key repeats', () => {
    const { records } = decodeHex('ab10' + '2600' + '0000' + '0000' + '01' + '1001' + Buffer.from('123456789012345').toString('hex') + '0924' + '00000000' + '00000000' + '0924' + '10000000' + '00000000');
    expect(records).toHaveLength(2);
    expect(records!.map((r) => r.time)).toEqual([0, 16000]);
  });
  it('keeps command answers as results', () => {
    expect(decodeHex('ab000800c9ea0c0004061f0074657374').records![0].attributes.result).toBe('test');
  });
});

describe('minifinder2 framer and commands', () => {
  it('cuts by the length field', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from(`00${BARK}${BARK}`, 'hex'))).toEqual({ frame: Buffer.from(BARK, 'hex'), consumed: 1 + BARK.length / 2 });
    expect(f.next(Buffer.from(BARK.slice(0, 30), 'hex'))).toBeNull();
    expect(() => f.next(Buffer.alloc(5000))).toThrow(FrameError);
  });
  it('sends a firmware update URL', () => {
    const bytes = protocol.encode!({ type: 'firmwareUpdate', attributes: { data: 'https://example.com' } }, { deviceId: '1', now: NOW, config: {} });
    expect(bytes.toString('hex')).toBe('ab00160059d2010004143068747470733a2f2f6578616d706c652e636f6d');
    expect(() => protocol.encode!({ type: 'engineStop', attributes: {} }, { deviceId: '1', now: NOW, config: {} })).toThrow();
  });
});
