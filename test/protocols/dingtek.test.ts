import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dingtek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('dingtek replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from('800001011e0692001a00000000016e008027c40000186962703655111781'), ctx()).reply).toBeUndefined();
  });
});

describe('dingtek decoding', () => {
  it('takes the IMEI from the end and the time of arrival', () => {
    const r = protocol.decode!(Buffer.from('800001011e0692001a00000000016e008027c40000186962703655111781'), ctx());
    expect(r.deviceId).toBe('869627036551117');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2025, 0, 1), valid: false, attributes: { height: 1682, temp1: 128, battery: 6.249 } });
  });
  it('keeps nothing from a configuration message', () => {
    expect(protocol.decode!(Buffer.from('8000010333020E180A1E4B1E124801042015693400000000173.249.23.186;6181;159.138.4.6;8888;000000000000000081'), ctx())).toEqual({});
  });
  it('frames by the length byte, counted in hex characters', () => {
    const msg = '800001011e0692001a00000000016e008027c40000186962703655111781';
    expect(protocol.createFramer!().next(Buffer.from(msg + '80'))!.frame.toString()).toBe(msg);
  });
});
