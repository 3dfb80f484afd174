import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { protocol } from '../../protocols/bce/index.ts';
import { capturesDir } from './harness.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());
const lines = readFileSync(`${capturesDir}/bce.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { payload: string });

describe('bce replies', () => {
  it('confirms an asynchronous stack block with IMEI, 02 00, 19, the confirm key and the byte sum', () => {
    const r = decode('18ed450cf31403000200a5070e');
    expect(r.deviceId).toBe('867459045649688');
    expect(r.reply?.toString('hex')).toBe('18ed450cf31403000200190782');
  });
  it('confirms every block of a frame, and nothing for time-triggered data', () => {
    const two = decode('18ed450cf31403000200a5070200a50900');
    expect(two.reply?.toString('hex')).toBe(`18ed450cf31403000200190782${'18ed450cf314030002001909'}84`);
    expect(decode('18ed450cf31403000200a0070e').reply).toBeUndefined();
  });
});

describe('bce decoding', () => {
  it('decodes the records of a captured stack: float coordinates, time since 2008, masks', () => {
    const r = decode(lines[0].payload);
    expect(r.records!.length).toBeGreaterThan(1);
    expect(r.records!.filter((f) => f.valid).length).toBeGreaterThan(0);
    for (const f of r.records!) {
      // a record without a position of its own is placed at the last fix, marked not valid
      expect(Math.abs(f.lat!)).toBeLessThanOrEqual(90);
      expect(f.time).toBeGreaterThan(Date.UTC(2008, 0, 1));
    }
    expect(r.reply).toBeDefined();
  });
});

describe('bce framer', () => {
  it('passes over the handshake and cuts at a block boundary with a matching sum', () => {
    const framer = protocol.createFramer!();
    const hs = Buffer.from('#BCE#\r\n');
    expect(framer.next(hs)).toBeNull();
    const frame = Buffer.from('18ed450cf31403000200a5070e', 'hex');
    expect(framer.next(Buffer.concat([hs, frame, frame]))).toEqual({ frame, consumed: hs.length + frame.length });
    expect(framer.next(frame)).toEqual({ frame, consumed: frame.length });
  });
});

describe('bce commands', () => {
  it('encodes output control with the byte sum', () => {
    const bytes = (index: number, data: string) => protocol.encode!({ type: 'outputControl', attributes: { index, data } }, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex');
    expect(bytes(1, '1')).toBe('79df0d86487000000600410aff00550048');
    expect(bytes(2, '0')).toMatch(/^79df0d86487000000600410bff000000[0-9a-f]{2}$/);
  });
});
