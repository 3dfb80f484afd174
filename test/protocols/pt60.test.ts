import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/pt60.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('pt60 replies', () => {
  it('answers B messages with type + 1, the IMEI and the server time', () => {
    expect(decode('@B#@|01|001|864891030184852|9425010450971470|1|45|20181127122717|32.701093|35.570938|1|').reply?.toString()).toBe('@B#@|01|002|864891030184852|0|20250222010203|@E#@');
    expect(decode('@B#@|01|006|864891030184954|9425010450971470|20181213093127|2|1|').reply?.toString()).toBe('@B#@|01|007|864891030184954|0|20250222010203|@E#@');
  });
  it('answers G messages with type 38 and the server time', () => {
    expect(decode('@G#@,V01,13,357653051059785,9404223001501310,20180419112656,1180,').reply?.toString()).toBe('@G#@,V01,38,20250222010203,@R#@');
  });
  it('answers nothing to a message without a time', () => {
    expect(decode('@G#@,V01,1,353882080015633,9460025014649193,')).toEqual({});
  });
});

describe('pt60 decoding', () => {
  it('B position: coordinates, or cells (cid, lac, mnc, mcc, rssi)', () => {
    const c = ctx();
    const [f] = decode('@B#@|01|001|864891030184852|9425010450971470|1|45|20181127122717|32.701093|35.570938|1|', c).records!;
    expect(f).toMatchObject({ time: Date.UTC(2018, 10, 27, 12, 27, 17), valid: true, lat: 32.701093, lng: 35.570938 });
    const [g] = decode('@B#@|01|001|864891030184852|9425010450971470|1|84|20181205161005|40412,10461,1,425,10|2|', c).records!;
    expect(g).toMatchObject({ valid: false, lat: 32.701093, cells: [{ mcc: 425, mnc: 1, lac: 10461, cid: 40412, rssi: 10 }] });
  });
  it('G track point, steps, heart rate', () => {
    expect(decode('@G#@,V01,6,111112222233333,8888888888888888,20150312010203,23.2014050;104.235212,').records![0]).toMatchObject({ lat: 23.201405, lng: 104.235212 });
    expect(decode('@G#@,V01,13,357653051059785,9404223001501310,20180419112656,1180,').records![0].attributes).toEqual({ steps: 1180 });
    expect(decode('@G#@,V01,14,357653051059785,9404223001501310,20180419165604,101,26,').records![0].attributes).toEqual({ heartRate: 101, batteryLevel: 26 });
  });
});

describe('pt60 framer', () => {
  it('cuts at @E#@ or @R#@', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from('@G#@,V01,1,3,9,@R#@@B#@|01|001|1|2|@E#@'))).toEqual({ frame: Buffer.from('@G#@,V01,1,3,9,'), consumed: 19 });
    expect(f.next(Buffer.from('@B#@|01|0'))).toBeNull();
    expect(() => f.next(Buffer.alloc(5000, 0x41))).toThrow(FrameError);
  });
});
