import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/pricol.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const FRAME = '3c5052493030303350020000011402110b222b0455152e4e001de819ca450000000000000003820249000000000000000000000000000000000000000040003e';

// `ACK` after every frame follows the open-source server's implementation; no public Pricol document confirms it.
describe('pricol', () => {
  it('decodes a 64-byte frame and answers ACK', () => {
    const r = protocol.decode!(Buffer.from(FRAME, 'hex'), ctx());
    expect(r.deviceId).toBe('PRI0003');
    expect(r.reply?.toString()).toBe('ACK');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2017-02-20T11:34:43.000Z');
    expect(p.lat).toBeCloseTo(11.1590367, 6);
    expect(p.lng).toBeCloseTo(76.9443367, 6);
    expect(p.attributes).toMatchObject({ event: 80, adc1: 898, adc2: 585, input: 0, output: 0 });
  });

  it('a frame with an empty date is a status record at the time of arrival', () => {
    const r = protocol.decode!(Buffer.from('3c544553303030324b02000000000000000000000000000000000000000000000000000000037c01f4000000000000000000000000000000000000000000003e', 'hex'), ctx());
    expect(r.records![0]).toMatchObject({ time: NOW, attributes: { event: 75, adc1: 892, adc2: 500 } });
    expect(r.records![0].lat).toBeUndefined();
  });

  it('frames every 64 bytes', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from(FRAME.slice(0, 100), 'hex'))).toBeNull();
    expect(framer.next(Buffer.from(FRAME + '3c', 'hex'))?.consumed).toBe(64);
  });
});
