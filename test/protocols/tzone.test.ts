import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tzone.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

const AVL = '545a00582424010b022000000860041028904798100803030c2700160a007da96203356669100803030c2700000000000e000004002813730010aa4000000617017100000000000080000000000000000000000000000000007701fe0d0a';
const RFID = '545a00912424010b021e000008661040203754350f061807083800160400ce5adc041447620f0618070838000a0000060c7c0004253378370010aac000000c37018504e500000000800000000000000000390b0a0014061113000000051200140610600014061220001000133800140610070010001473001000151100101500640010000920001000148400000000000000f2ef570d0a';
const TAGS = '545a005b24240406010800000866050033819630120911071824000472bd8e5b0008aac01b07019b04bb002f00040b06161154000e100132ff2006161152000e080096ff4606161151000e1e0101ff1406161156000db6405bff490024469e0d0a';

describe('tzone replies', () => {
  // The TZ binary reports are fire-and-forget: no acknowledgement is documented for them (none
  // could be found in the public TZONE material), so the decoder returns no reply bytes.
  it('sends nothing back for a report', () => {
    expect(decodeHex(AVL).reply).toBeUndefined();
    expect(decodeHex(TAGS).reply).toBeUndefined();
  });
});

describe('tzone decoding', () => {
  it('decodes the fix of the older hardware: 1/600000 degree, hemisphere and fix bits, 0.01 km/h', () => {
    const { deviceId, records } = decodeHex(AVL);
    expect(deviceId).toBe('860041028904798');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2016-08-03T03:12:39.000Z');
    expect(r.lat).toBeCloseTo(13.725603, 5);
    expect(r.lng).toBeCloseTo(-89.718788, 5); // bit 9: west
    expect(r).toMatchObject({ valid: true, satellites: 10, speed: 0, course: 0 });
    expect(r.cells).toEqual([{ mcc: 0, mnc: 0, lac: 0x28, cid: 0x1373 }]);
    expect(r.attributes).toMatchObject({ event: 0xaa, rssi: 6, battery: 3.69, power: 0, index: 0x77 });
  });
  it('lists the RFID tags a reader saw', () => {
    const [r] = decodeHex(RFID).records!;
    expect(r.course).toBe(124);
    expect(String(r.attributes.rfid).split(',')).toHaveLength(11);
    expect(String(r.attributes.rfid).startsWith('0014061113,0000000512')).toBe(true);
  });
  it('reads the temperature tags of a TAG reader (bit 14: below zero)', () => {
    const [r] = decodeHex(TAGS).records!;
    expect(r.lat).toBeUndefined();
    expect(r.attributes).toMatchObject({ temp1: 30.6, temp2: 15, temp3: 25.7, temp4: -9.1, battery: 4.11, power: 12.11 });
  });
  it('rejects a packet whose CRC does not match', () => {
    const bad = Buffer.from(AVL, 'hex');
    bad[30] ^= 1;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });
});

describe('tzone framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts by the length field (after TZ, up to the CRLF)', () => {
    expect(next(`0000${AVL}${TAGS}`)?.frame.toString('hex')).toBe(AVL);
    expect(next(AVL.slice(0, 60))).toBeNull();
  });
  it('rejects an impossible length', () => {
    expect(() => next('545a0001')).toThrow(FrameError);
  });
});
