import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/satsol.ts';
import { crc16CcittFalse } from '../../protocols/binary.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { capturesDir } from './harness.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const PACKET = Buffer.from(JSON.parse(readFileSync(join(capturesDir, 'satsol.jsonl'), 'utf8').split('\n')[0]).payload as string, 'hex');

describe('satsol replies', () => {
  // Not confirmed by a public document: the acknowledgement (CRC-16/CCITT-FALSE, preamble, id), as the widely used
  // open-source server sends it.
  it('acknowledges a packet with its device id', () => {
    const reply = protocol.decode!(PACKET, ctx()).reply!;
    expect(reply.subarray(2).toString('hex')).toBe('bf4cb2ec16000000');
    expect(reply.readUInt16LE(0)).toBe(crc16CcittFalse(reply, 2, 10));
  });
});

describe('satsol decoding', () => {
  it('reads every record', () => {
    const r = protocol.decode!(PACKET, ctx());
    expect(r.deviceId).toBe('1502386');
    expect(r.records).toHaveLength(7);
    expect(r.records![0]).toEqual({ time: 1548835273000, lat: 55.23102, lng: 30.256558, speed: 2.7, altitude: 168, course: 37, valid: true, satellites: 9, attributes: { event: 2, archive: true } });
  });
  it('frames by the little-endian length at byte 8', () => {
    expect(protocol.createFramer!().next(Buffer.concat([PACKET, Buffer.from([0xf0])]))!.consumed).toBe(PACKET.length);
  });
});
