import { describe, it, expect } from 'vitest';
import { protocol, crc16Xmodem } from '../../protocols/ulbotech.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const text = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

// GPS (no fix: HDOP 9999), status, odometer, analog channels; CRC 0x8536
const REPORT = 'f801010868323028799515251e10d3010e03b52df8ff99fde500000000270f030402020000040402c62a7e0506057c1929220d060800000000000000000f040071eb621001018536f8';
// GPS fix with OBD items
const OBD = 'f801010353323083177450a703f6f0010efe55a31a0923d01400050070007003040a42000004040070cca00506039b1876220f060800000000000000000725310553410c0c9e310d05310f4641100440311119411f00476101810f8000310487411f00480804203a14c009033320159310f8';

describe('ulbotech replies', () => {
  it('acknowledges a binary report with *TS01,ACK:<its CRC>#', () => {
    expect(crc16Xmodem(Buffer.from('123456789'))).toBe(0x31c3);
    const r = hex(REPORT);
    expect(r.deviceId).toBe('868323028799515');
    expect(r.reply?.toString()).toBe('*TS01,ACK:8536#');
  });
  it('sends nothing for text frames', () => {
    expect(text('*TS01,353323081464660#')).toEqual({ deviceId: '353323081464660' });
  });
});

describe('ulbotech decoding', () => {
  it('reads time (s since 2000), GPS block and an invalid fix from HDOP 9999', () => {
    const [f] = hex(REPORT).records!;
    expect(new Date(f.time!).toISOString()).toBe('2019-09-25T11:49:39.000Z');
    expect(f).toMatchObject({ valid: false, lat: 62.205432, lng: -6.685211, attributes: { odometer: 46541438, adcRaw0: 1404 } });
  });
  it('reads OBD items through the SAE formulas', () => {
    const r = hex(OBD);
    if (!r.records) throw new Error('no record');
    expect(r.records[0].attributes).toMatchObject({ coolantTemp: 43, rpm: 807.5, obdSpeed: 5 });
    expect(r.records[0]).toMatchObject({ valid: true, hdop: 1.12 });
  });
  it('keeps a text command reply as result', () => {
    const [r] = text('*TS01,868323025245751,134955140317,WFE:0#').records!;
    expect(r).toEqual({ time: Date.UTC(2017, 2, 14, 13, 49, 55), attributes: { result: 'WFE:0' } });
  });
  it('refuses a bad CRC', () => {
    expect(() => hex(REPORT.replace('8536f8', '8537f8'))).toThrow(DecodeError);
  });
});

describe('ulbotech framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts F8..F8 and un-escapes F7 00 / F7 01', () => {
    expect(next('f80101f700f701aaf8f801')?.frame.toString('hex')).toBe('f80101f7f8aaf8');
    expect(next('2a545330312c3123f8')?.frame.toString()).toBe('*TS01,1#');
    expect(next('f80101')).toBeNull();
  });
  it('rejects other bytes', () => {
    expect(() => next('00')).toThrow(FrameError);
  });
});

describe('ulbotech commands', () => {
  it('wraps custom commands in *TS01,...#', () => {
    expect(protocol.encode!({ type: 'custom', attributes: { data: 'UNO;13912345678' } }, { deviceId: '1', now: 0, config: {} }).toString()).toBe('*TS01,UNO;13912345678#');
  });
});
