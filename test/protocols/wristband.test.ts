import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/wristband.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 2, 3, 4, 5), transport: 'tcp', config, session: {} });
const frame = (text: string) => {
  const t = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from([0, 1, 2, t.length >> 8, t.length & 0xff]), t, Buffer.from([0xff, 0xfe, 0xfc])]);
};
const text = (b?: Buffer) => b && b.subarray(5, b.length - 3).toString('latin1');

describe('wristband replies', () => {
  // Not confirmed by a public document: the answers' layout (the device's own frame with model 0), as the
  // widely used open-source server sends them.
  it('answers a status with its second value and F64 with its data', () => {
    const r = protocol.decode!(frame('YX868704044750055|V1.0|1|{F01#94,1,100,0,31000,900}\r\n'), ctx());
    expect(r.reply!.subarray(0, 5).toString('hex')).toBe('0001020022');
    expect(text(r.reply)).toBe('YX868704044750055|V1.0|0|{F01#1}\r\n');
    expect(r.reply!.subarray(-3).toString('hex')).toBe('fffefc');
    expect(text(protocol.decode!(frame('YX868704044750055|V1.0|0|{F64#1}\r\n'), ctx()).reply)).toBe('YX868704044750055|V1.0|0|{F64#1}\r\n');
  });
  it('answers F91 with the time and the configured server, and F90/F91 not at all without one', () => {
    const f91 = frame('YX868704044750055|V1.0|1|{F91#310_00|00|00|00|WANDAI2018/12/14 15:56}\r\n');
    expect(text(protocol.decode!(f91, ctx({ server: 'gps.example.com,5174' })).reply)).toBe('YX868704044750055|V1.0|0|{F91#2025-01-02-03-04-05|gps.example.com,5174}\r\n');
    expect(protocol.decode!(f91, ctx()).reply).toBeUndefined();
  });
});

describe('wristband decoding', () => {
  it('reads fixes (longitude first) and places later status records at the last fix', () => {
    const c = ctx();
    const fixes = protocol.decode!(frame('YX868704044750055|V1.0|1|{F02#77.477817,-38.896292,201812291255,0.58|77.477796,-38.896245,201812291255,0.00}\r\n'), c).records!;
    expect(fixes[0]).toEqual({ valid: true, lat: -38.896292, lng: 77.477817, speed: 0.58, time: Date.UTC(2018, 11, 29, 12, 55), attributes: {} });
    const [status] = protocol.decode!(frame('YX868704044750055|V1.0|1|{F01#94,1,100,0,31000,900}\r\n'), c).records!;
    expect(status).toMatchObject({ valid: false, lat: -38.896245, attributes: { batteryLevel: 94 } });
  });
  it('reads Wi-Fi and cells', () => {
    const [r] = protocol.decode!(frame('YX868704044750055|V1.0|1|{F03#08:05:81:d8:18:87,-76_00:7f:28:c7:ba:c1,-77|18,07,3,590754,30}\r\n'), ctx()).records!;
    expect(r.attributes.wifi).toBe('08:05:81:d8:18:87,-76;00:7f:28:c7:ba:c1,-77');
    expect(r.cells).toEqual([{ mcc: 3, mnc: 7, lac: 18, cid: 590754, rssi: 30 }]);
  });
});
