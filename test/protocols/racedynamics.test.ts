import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/racedynamics.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { capturesDir } from './harness.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 1, 2, 3), transport: 'tcp', config: {}, session: {}, deviceId });
const DATA = JSON.parse(readFileSync(join(capturesDir, 'racedynamics.jsonl'), 'utf8').split('\n')[1]).payload as string;

describe('racedynamics replies', () => {
  // Not confirmed by a public document: the $GPRMC answer with the server time, as the widely used open-source server sends it.
  it('answers the login and data with the type, the server time and the IMEI', () => {
    expect(protocol.decode!(Buffer.from('$GPRMC,12,260819,100708,862549040661129,'), ctx()).reply!.toString()).toBe('$GPRMC,12,220225,010203,862549040661129,\r\n');
    expect(protocol.decode!(Buffer.from(DATA), ctx('862549040661129')).reply!.toString()).toBe('$GPRMC,15,220225,010203,862549040661129,\r\n');
  });
});

describe('racedynamics decoding', () => {
  it('reads the records of a data message', () => {
    const [f] = protocol.decode!(Buffer.from(DATA), ctx('862549040661129')).records!;
    expect(f).toEqual({
      time: Date.UTC(2019, 7, 26, 10, 6, 32), valid: true, lat: 12.925176666666667, lng: 77.63825666666666, speed: 1, altitude: 887, satellites: 6,
      attributes: { ignition: true, index: 11, driverUniqueId: '0000000000000000', power: 7.13, battery: 4.16 },
    });
  });
});
