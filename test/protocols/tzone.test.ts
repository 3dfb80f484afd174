import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tzone.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());

const AVL = '545a00582424010b022000000860041028904798100803030c2700160a007da96203356669100803030c2700000000000e000004002813730010aa4000000617017100000000000080000000000000000000000000000000007701fe0d0a';
const RFID = '545a00912424010b021e000008661040203754350f061807083800160400ce5adc041447620f0618070838000a0000060c7c0004253378370010aac000000c37018504e500000000800000000000000000390b0a0014061113000000051200140610600014061220001000133800140610070010001473001000151100101500640010000920001000148400000000000000f2ef570d0a';
const TAGS = '545a005b24240406010800000866050033819630120911071824000472bd8e5b0008aac01b07019b04bb002f00040b06161154000e100132ff2006161152000e080096ff4606161151000e1e0101ff1406161156000db6405bff490024469e0d0a';

describe('tzone replies', () => {
  // The acknowledgement is optional on the device (and undocumented in the public TZONE material we
  // found): its layout `@ACK,<serial>#@UTC time:yyyy-MM-dd HH:mm:ss` is taken from a public implementation.
  it('sends nothing back for a report by default', () => {
    expect(decodeHex(AVL).reply).toBeUndefined();
    expect(decodeHex(TAGS).reply).toBeUndefined();
  });
  it('acknowledges a report with its serial and the UTC time when configured (ack: true)', () => {
    const r = protocol.decode!(Buffer.from(AVL, 'hex'), { ...ctx(), config: { ack: true } });
    expect(r.reply?.toString('latin1')).toBe('@ACK,119#@UTC time:2025-02-22 00:00:00');
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
    expect(r.attributes).toMatchObject({ event: 0xaa, rssi: 6, battery: 3.69, power: 0, index: 0x77, in1: false, out1: false });
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
  it('reads the newer GPS block (hdop, altitude, course, 0.1 km/h, satellites) and the logger sensors', () => {
    const [gps] = decodeHex('545a004b2424041302000000086706003324776413030c0a1a2900180513030c0a1a25080f7e1028cac830000a000f0000000005000aa53201633d05046000010009aa201737019408973b0032b0260d0a').records!;
    expect(gps).toMatchObject({ hdop: 1, altitude: 15, course: 0, speed: 0, satellites: 5, valid: true });
    expect(gps.lat).toBeCloseTo(22.53884, 5);
    expect(gps.lng).toBeCloseTo(114.063027, 5);
    const [logger] = decodeHex('545a003724240407020200000180322000001610160b151019100000000c010a07320101088600007dca000baa102837016a0114025500000169e80d0a').records!;
    expect(logger.cells).toEqual([{ mcc: 732, mnc: 101, lac: 0x0886, cid: 0x7dca }]);
    expect(logger.attributes).toMatchObject({ battery: 3.62, temp1: 27.6, humidity: 59.7, light: true });
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
