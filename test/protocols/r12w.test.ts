import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/r12w.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (text: string) => protocol.decode!(Buffer.from(text), ctx());

// The login answer follows the open-source server's implementation; its checksum rule (xor of `$HX...#`
// as two hex digits) is the one the captured login itself carries (",50,").
describe('r12w', () => {
  it('answers the login with its token and OK', () => {
    const r = decode('$HX,0001,860721009104316,e92c,933402042499509,55792760080,12345678,01,a8d940a9,#,50,');
    expect(r.deviceId).toBe('860721009104316');
    expect(r.reply?.toString()).toBe('$HX,1001,860721009104316,e92c,OK,#,00,\r\n');
    expect(r.records).toBeUndefined();
  });

  it('carries the checksum of the answer in lowercase hex', () => {
    expect(decode('$HX,0001,123456789012345,a1,x,#,00,').reply?.toString()).toBe('$HX,1001,123456789012345,a1,OK,#,5f,\r\n');
  });

  it('takes only the identity from other sentences', () => {
    expect(decode('$HX,0002,860721009104316,1,#,00,')).toEqual({ deviceId: '860721009104316' });
  });
});
