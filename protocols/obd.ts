/**
 * OBD-II mode 01 values (SAE J1979): PID -> attribute and the standard formula over the raw value,
 * for protocols that pass PIDs through. (eelink and aquila keep tables of their own that could use this.)
 */
import { Attr } from './attributes.ts';
import type { AttrValue } from './types.ts';

export const OBD_PIDS: Readonly<Record<number, readonly [name: string, convert: (raw: number) => number]>> = {
  0x04: [Attr.engineLoad, (v) => (v * 100) / 255],
  0x05: [Attr.coolantTemp, (v) => v - 40],
  0x0b: ['mapIntake', (v) => v],
  0x0c: [Attr.rpm, (v) => v / 4],
  0x0d: [Attr.obdSpeed, (v) => v],
  0x0f: ['intakeTemp', (v) => v - 40],
  0x10: ['maf', (v) => v / 100],
  0x11: [Attr.throttle, (v) => (v * 100) / 255],
  0x1f: ['runTime', (v) => v],
  0x21: ['milDistance', (v) => v],
  0x2f: [Attr.fuelLevel, (v) => (v * 100) / 255],
  0x31: ['clearedDistance', (v) => v],
  0x46: ['ambientTemp', (v) => v - 40],
};

/** Store a PID's value under its attribute name; PIDs without a formula here are skipped. */
export function setObdValue(a: Record<string, AttrValue>, pid: number, raw: number): void {
  const known = OBD_PIDS[pid];
  if (known) a[known[0]] = known[1](raw);
}
