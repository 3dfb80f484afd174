/** FSM_TELEMETRY_NICE is validated with the rest of the configuration and reaches the workers as data (issue 9). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('FSM_TELEMETRY_NICE', () => {
  it('defaults to 10 and takes 0..19', () => {
    expect(loadConfig({ FSM_DATA_DIR: '/tmp/fsm-nice' }).telemetryNice).toBe(10);
    expect(loadConfig({ FSM_DATA_DIR: '/tmp/fsm-nice', FSM_TELEMETRY_NICE: '0' }).telemetryNice).toBe(0);
    expect(loadConfig({ FSM_DATA_DIR: '/tmp/fsm-nice', FSM_TELEMETRY_NICE: '19' }).telemetryNice).toBe(19);
  });
  it('refuses a bad value with a clear error', () => {
    expect(() => loadConfig({ FSM_DATA_DIR: '/tmp/fsm-nice', FSM_TELEMETRY_NICE: 'low' })).toThrow('FSM_TELEMETRY_NICE must be a whole number from 0 to 19, got "low"');
    expect(() => loadConfig({ FSM_DATA_DIR: '/tmp/fsm-nice', FSM_TELEMETRY_NICE: '20' })).toThrow('FSM_TELEMETRY_NICE must be from 0 to 19, got 20');
  });
  it('the worker entry takes it from its worker data, not the environment', () => {
    const entry = readFileSync(new URL('../../workers/telemetry-entry.mjs', import.meta.url), 'utf8');
    expect(entry).not.toMatch(/process\.env/);
    expect(entry).toMatch(/workerData/);
  });
});
