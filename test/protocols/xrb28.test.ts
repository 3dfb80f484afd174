import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/xrb28.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

// The acknowledgements (`\xff\xff*SCOS,<vendor>,<imei>,<type>#\n` to L0, L1, W0 and E1) follow the
// open-source server's implementation; no public XRB28 document confirms them.
describe('xrb28 replies', () => {
  it('acknowledges lock, unlock and alarm reports', () => {
    expect(decode('*SCOR,OM,863158022988725,L0,0,1234,1497689816#').reply?.toString('latin1')).toBe('\xff\xff*SCOS,OM,863158022988725,L0#\n');
    expect(decode('*SCOR,OM,863158022988725,W0,2#').reply?.toString('latin1')).toBe('\xff\xff*SCOS,OM,863158022988725,W0#\n');
  });
  it('answers nothing to fixes and status', () => {
    expect(decode('*SCOR,OM,863158022988725,H0,0,412,28,80,0#').reply).toBeUndefined();
  });
});

describe('xrb28 decoding', () => {
  it('maps alarms and status values', () => {
    expect(decode('*SCOR,OM,863158022988725,W0,2#').records![0].attributes).toEqual({ alarm: 'fallDown' });
    expect(decode('*SCOR,OM,863158022988725,H0,1,412,28,80,0#').records![0].attributes).toEqual({ blocked: true, battery: 4.12, rssi: 28, batteryLevel: 80 });
  });
  it('encodes commands with the 0xffff prefix', () => {
    const b = protocol.encode!({ type: 'positionSingle', attributes: {} }, { deviceId: '863158022988725', now: 0, config: {} });
    expect(b.toString('latin1')).toBe('\xff\xff*SCOS,OM,863158022988725,D0#\n');
  });
});
