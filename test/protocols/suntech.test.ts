import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/suntech.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.now(), transport: 'tcp', config, session: {} });
const text = (s: string) => Buffer.from(s, 'latin1');
const STT = 'ST300STT;205027329;03;374;20150108;17:54:42;177b38;-23.566052;-046.477588;010.000;090.50;9;1;1234;12.11;100100;1;0312';
const UEX = 'ST600UEX;008728327;20;568;20190424;08:33:11;0bf1283b;334;20;2f19;18;+20.514145;-100.743710;000.004;000.00;10;1;10377861;12.96;000000;44;t_0=13;N_0=089D.0;t_1=1B;N_1=0E74.0;Q_D=0B\r\n;B4;028498;4.1;1';

describe('suntech framer', () => {
  it('cuts text frames at CR, keeping CR LF inside UEX serial data', () => {
    const framer = protocol.createFramer!();
    const stream = text(`${UEX}\r${STT}\r`);
    const first = framer.next(stream)!;
    expect(first.frame.toString('latin1')).toBe(UEX);
    const second = framer.next(stream.subarray(first.consumed))!;
    expect(second.frame.toString('latin1')).toBe(STT);
    expect(framer.next(text(UEX.slice(0, 230)))).toBeNull();
  });

  it('cuts binary frames by their length and drops stray line ends', () => {
    const zip = Buffer.from('02003210511340877028813f180c170016041051290c0635652d793653000038001a30e601665e560000000100750002712704000103', 'hex');
    const cut = protocol.createFramer!().next(Buffer.concat([text('\r\n'), zip, zip]))!;
    expect(cut.frame.equals(zip)).toBe(true);
    expect(cut.consumed).toBe(zip.length + 2);
    expect(protocol.createFramer!().next(zip.subarray(0, 20))).toBeNull();
  });

  it('rejects garbage', () => {
    expect(() => protocol.createFramer!().next(Buffer.from([0x05, 0xff, 0x10, 0x20]))).toThrow(FrameError);
  });
});

describe('suntech decoder', () => {
  it('decodes a legacy ST300 status report (km/h speed, volts, io)', () => {
    const r = protocol.decode!(text(STT), ctx());
    expect(r.deviceId).toBe('205027329');
    expect(r.reply).toBeUndefined();
    const [rec] = r.records!;
    expect(rec).toMatchObject({ lat: -23.566052, lng: -46.477588, speed: 10, course: 90.5, satellites: 9, valid: true });
    expect(rec.time).toBe(Date.UTC(2015, 0, 8, 17, 54, 42));
    expect(rec.attributes).toMatchObject({ power: 12.11, odometer: 1234, ignition: true, in3: true, out1: false, status: 1, index: 312 });
  });

  it('reads the hour meter (minutes) and backup battery when HBM is on', () => {
    const r = protocol.decode!(text(`${STT};003188;4.1;0`), ctx({ hbm: 1 }));
    expect(r.records![0].attributes).toMatchObject({ hours: 3188 * 60000, battery: 4.1, archive: true });
  });

  it('decodes UEX fuel sensors and a universal alert', () => {
    const fuel = protocol.decode!(text(UEX), ctx()).records![0].attributes;
    expect(fuel).toMatchObject({ fuel0: 0x89d, fuel1: 0xe74, fuel: 0x89d + 0xe74, temp0: 0x13, drivingQuality: 0x0b });
    const alt = protocol.decode!(text('ALT;0950030205;3FFFFF;95;1.0.11;0;20221017;21:41:30;02F2F402;334;20;0F1D;45;+25.791061;-100.170745;12.00;0.00;18;1;00000101;00000000;42;2;'), ctx());
    expect(alt.deviceId).toBe('0950030205');
    expect(alt.records![0]).toMatchObject({ speed: 12, cells: [{ mcc: 334, mnc: 20, lac: 0x0f1d, cid: 0x02f2f402 }] });
    expect(alt.records![0].attributes).toMatchObject({ alarm: 'sos', input: 5, ignition: true });
  });

  it('keeps command replies as results and keep-alives as identity only', () => {
    expect(protocol.decode!(text('ST300CMD;Res;511848119;319H;Disable1'), ctx()).records).toEqual([{ attributes: { result: '319H;Disable1' } }]);
    const alive = protocol.decode!(text('SA200ALV;317652'), ctx());
    expect(alive).toEqual({ deviceId: '317652' });
  });
});

describe('suntech encoder', () => {
  const ectx = (config: Record<string, unknown> = {}) => ({ deviceId: '205027329', now: 0, config });
  it('uses the legacy form with the model prefix, or the universal form', () => {
    expect(protocol.encode!({ type: 'engineStop', attributes: {} }, ectx({ prefix: 'ST300' })).toString('latin1')).toBe('ST300CMD;205027329;02;Enable1\r');
    expect(protocol.encode!({ type: 'outputControl', attributes: { index: 2, data: '0' } }, ectx()).toString('latin1')).toBe('SA200CMD;205027329;02;Disable2\r');
    expect(protocol.encode!({ type: 'rebootDevice', attributes: {} }, ectx({ universal: true })).toString('latin1')).toBe('CMD;205027329;03;03\r');
    expect(protocol.encode!({ type: 'custom', attributes: { data: 'ST300CMD;205027329;02;StatusReq\r' } }, ectx()).toString('latin1')).toBe('ST300CMD;205027329;02;StatusReq\r');
  });
  it('rejects unsupported commands', () => {
    expect(() => protocol.encode!({ type: 'message', attributes: { message: 'hi' } }, ectx())).toThrow();
  });
});
