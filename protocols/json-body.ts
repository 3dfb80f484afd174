/**
 * The JSON object an HTTP protocol receives as its body, or undefined for a body that is not one
 * (the protocol answers 400 then). Too large a body is a decode error.
 */
import { DecodeError } from './types.ts';

export type JsonObject = Record<string, unknown>;

export function jsonObjectBody(body: Buffer, max: number, name: string): JsonObject | undefined {
  if (body.length > max) throw new DecodeError(`${name}: body too large`);
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** A member that is an object, or an empty one. */
export const member = (o: JsonObject | undefined, key: string): JsonObject => {
  const v = o?.[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
};

/** A member that is a finite number, or undefined. */
export const numberMember = (o: JsonObject, key: string): number | undefined => (typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined);

/** ISO-8601 with up to nanoseconds (a LoRaWAN network server's form), to ms; undefined for anything else. */
export function isoTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(t) ? t : undefined;
}
