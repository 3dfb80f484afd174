import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dolphin.ts';
import { protoEncode } from '../../protocols/protobuf.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { capturesDir } from './harness.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const CAPTURE = Buffer.from(JSON.parse(readFileSync(join(capturesDir, 'dolphin.jsonl'), 'utf8').split('\n')[0]).payload, 'hex');

const f32 = (field: number, v: number) => {
  const b = Buffer.alloc(5);
  b[0] = field * 8 + 5;
  b.writeFloatLE(v, 1);
  return b;
};
/** A data pack of one point, framed with index 7 for IMEI 860675040296160. */
function dataPack(): Buffer {
  const time = Buffer.alloc(5);
  time[0] = 8 * 8 + 5;
  time.writeUInt32LE(1610371934, 1);
  const point = Buffer.concat([f32(1, 35.5), f32(2, 59.25), f32(3, 1650), protoEncode([[4, 18]]), f32(5, 72), f32(6, 31.5), protoEncode([[7, 6]]), time, protoEncode([[9, 1], [11, Buffer.from([10, 41, 50])], [12, Buffer.from([1, 0x8c, 0x1b, 0x64])]])]);
  const body = protoEncode([[1, point]]);
  const head = Buffer.alloc(28);
  head.writeUInt16BE(0xabab, 0);
  head.writeUInt32LE(7, 2);
  head.writeUInt16LE(1, 10);
  head.writeBigUInt64LE(860675040296160n, 12);
  head.writeUInt32LE(body.length, 20);
  return Buffer.concat([head, body]);
}

// The answer's layout (header, echoed index, flags, type 2, length, reserved, then the protobuf data pack
// response with code OK) follows the open-source server that documents this protocol and its published
// message schema; no vendor document confirms it.
describe('dolphin replies', () => {
  it('answers a data pack with the response of code OK under the same index', () => {
    expect(protocol.decode!(CAPTURE, ctx()).reply!.toString('hex')).toBe('ababff8f0300000002000200000000000000' + '0801');
    expect(protocol.decode!(dataPack(), ctx()).reply!.toString('hex')).toBe('abab07000000000002000200000000000000' + '0801');
  });
});

describe('dolphin decoding', () => {
  it('reads the points of a data pack with their IO values', () => {
    expect(protocol.decode!(dataPack(), ctx())).toMatchObject({
      deviceId: '860675040296160',
      records: [
        {
          time: 1610371934000, valid: true, lat: 35.5, lng: 59.25, altitude: 1650, satellites: 18, speed: 72, course: 31.5, hdop: 6,
          attributes: { event: 1, io10: 1, ignition: true, io41: 3468, battery: 3.468, io50: 100, odometer: 100 },
        },
      ],
    });
  });
  it('reads all 23 points of the captured data pack', () => {
    expect(protocol.decode!(CAPTURE, ctx()).records).toHaveLength(23);
  });
  it('frames on the little-endian body length at offset 20', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(CAPTURE.subarray(0, 100))).toBeNull();
    expect(framer.next(Buffer.concat([CAPTURE, CAPTURE]))).toEqual({ frame: CAPTURE, consumed: CAPTURE.length });
  });
});
