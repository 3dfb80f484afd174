import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/envotech.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('envotech replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode("$80SLM,02,F,AB0010,130410155921,431750216,000040,0000,,00000000,'13041015592110476673N10111459E001281*2A").reply).toBeUndefined();
  });
});

describe('envotech decoding', () => {
  it('reads the status part and the fix after the quote', () => {
    const r = decode("$80SLM,60,000F,F016109,290322100445,AF2463902,000406,0000,000,00018780,54000000'29032209493500406302S03966062E000348*E637");
    expect(r.deviceId).toBe('F016109');
    expect(r.records![0]).toMatchObject({
      time: Date.UTC(2022, 2, 29, 9, 49, 35), valid: false, lat: -4.06302, lng: 39.66062, course: 348,
      attributes: { event: 0x60, alarm: 'lock', rssi: 24, power: 0, battery: 4.06, input: 0, output: 0, fuel: 0, status: 0x00018780 },
    });
  });
});
