import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/fleetguide.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const SYNC = '5300188f8a020001f36a';
const NO_ACK_DATA = '53361886b60e00540700cf3b8f1a838d060e041dc683a1b672a04b0000ba885d00030c0ea567052c06ffffffff03300680800118000720070000000000006bc3';
const STATUS = '5322188f8a0200140700f355831a83ec06030c008065052c06ffffffff033006808001180003200100005ec0';
const COMPRESSED = '538958235a02008408070027398f1a7da3040c0485c7437f9db8a635ca016189030c76a567052c06bd05ffff033006138009340f69fb0080008000800118010320018005070029398f1a7e08043b39f0437f14b9a635cb010288030c7108233b2b398f1a7f08043bec18447f7fbca6357c010b8008263b2d398f1a8008043be53d447f61c0a63562011480030c7708213b6f3b';

// The answer's layout (signature, options, device id, SYNC_ACK type after a sync request, the mask of
// acknowledged indexes, CRC-16/CCITT-FALSE after the signature) follows the open-source server that
// documents this protocol; no vendor document confirms it.
describe('fleetguide replies', () => {
  it('answers a sync request with SYNC_ACK and the mask of index 0', () => {
    expect(decode(SYNC)).toEqual({ deviceId: '166543', reply: Buffer.from('5300388f8a0200020100942a', 'hex') });
  });
  it('acknowledges a data message with the mask of its index', () => {
    // type 3 (data, acknowledgement requested), index 0; a time record alone
    expect(decode('5306188f8a0200030400e378351a33c6').reply!.toString('hex')).toBe('5300288f8a020001006167');
  });
  it('sends nothing back to the data types that ask for no acknowledgement', () => {
    expect(decode(NO_ACK_DATA).reply).toBeUndefined();
    expect(decode(STATUS).reply).toBeUndefined();
  });
});

describe('fleetguide decoding', () => {
  it('reads a point: time, location, supply, fuel, inputs and analog inputs', () => {
    expect(decode(NO_ACK_DATA)).toMatchObject({
      deviceId: '964230',
      records: [
        {
          time: Date.UTC(2024, 1, 14, 8, 16, 15), valid: true, speed: 0, course: 186, satellites: 17, altitude: 93,
          attributes: { power: 12.94, ignition: true, battery: 4.14, fuel1: 65535, fuel2: 65535, fuelTemp1: -128, input: 0, adc1: 0, adc2: 0, adc3: 0 },
        },
      ],
    });
    const [f] = decode(NO_ACK_DATA).records!;
    expect(f.lat).toBeCloseTo(56.782526, 6);
    expect(f.lng).toBeCloseTo(53.175059, 6);
  });
  it('expands compressed data into its points (back references copy earlier bytes)', () => {
    const records = decode(COMPRESSED).records!;
    expect(records.map((r) => [r.time, r.speed, r.course])).toEqual([
      [Date.UTC(2024, 1, 14, 8, 4, 55), 45.8, 353],
      [Date.UTC(2024, 1, 14, 8, 4, 57), 45.9, 2],
      [Date.UTC(2024, 1, 14, 8, 4, 59), 38, 11],
      [Date.UTC(2024, 1, 14, 8, 5, 1), 35.4, 20],
    ]);
    expect(records[0].attributes).toMatchObject({ temp1: -11.75, fuel1: 1469, input: 1, adc1: 1408 });
    expect(records[0].attributes.temp2).toBeUndefined(); // -32768: no sensor
  });
  it('refuses a message whose CRC does not match', () => {
    expect(() => decode(SYNC.slice(0, -4) + '0000')).toThrow('bad CRC');
  });
  it('gives a point without a location the last one, not valid (0/0 before any)', () => {
    const c = ctx();
    expect(decode(STATUS, c).records![0]).toMatchObject({ lat: 0, lng: 0, valid: false, time: Date.UTC(2024, 1, 5, 7, 40, 35) });
    decode(NO_ACK_DATA, c);
    const [f] = decode(STATUS, c).records!;
    expect(f.valid).toBe(false);
    expect(f.lat).toBeCloseTo(56.782526, 6);
  });
});
