import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/autotrack.ts';
import { crc16Xmodem } from '../../protocols/binary.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const LOGIN = 'f1f1f1f1330c00201007090006de7200000000daa3';

describe('autotrack replies', () => {
  // Not confirmed by a public document: the 101 and 123 confirmations (CRC-16/XMODEM), as the widely used
  // open-source server sends them.
  it('confirms the login with the IMEI and constants', () => {
    const r = protocol.decode!(Buffer.from(LOGIN, 'hex'), ctx());
    expect(r.deviceId).toBe('201007090006de72');
    const body = 'f1f1f1f1650c00201007090006de7200000000';
    expect(r.reply!.toString('hex')).toBe(body + crc16Xmodem(Buffer.from(body, 'hex')).toString(16).padStart(4, '0'));
  });
  it('confirms telemetry with its index', () => {
    const t = Buffer.alloc(7 + 60 + 2);
    t.writeUInt32BE(0xf1f1f1f1, 0);
    t[4] = 52;
    t.writeUInt16LE(60, 5);
    t.writeUInt32LE(700_000_000, 7);
    t.writeInt32LE(514_000_000, 11);
    t.writeInt32LE(-1_000_000, 15);
    t.writeUInt16LE(60, 27);
    t.writeUInt16LE(5, 65);
    const r = protocol.decode!(t, ctx('1'));
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2002, 0, 1) + 700_000_000_000, lat: 51.4, lng: -0.1, speed: 60 });
    expect(r.reply!.subarray(0, 9).toString('hex')).toBe('f1f1f1f17b02000500');
  });
});
