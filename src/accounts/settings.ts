/**
 * A user's display settings (issue 12; docs/reports.md "The user's settings"): time zone (an IANA
 * name Intl knows), locale (`en`, `ru`, `pt-BR`, `ru_RU`) and measurement system. One rule set for
 * the admin command (`user create|update`) and `user/settings/update`.
 */
import { isValidTimeZone } from '../core/time.ts';

export const MEASUREMENT_SYSTEMS = ['metric', 'imperial', 'us'] as const;
export type MeasurementSystemName = (typeof MEASUREMENT_SYSTEMS)[number];

/** ISO 639 language, optionally a region or script (`-` or `_`). */
export const LOCALE_RULE = /^[a-z]{2,3}(?:[-_](?:[A-Z]{2}|[A-Za-z]{4}|\d{3}))?$/;

export interface UserSettings {
  time_zone?: string;
  locale?: string;
  measurement_system?: MeasurementSystemName;
}

/** What is wrong with the settings, by name; empty when they are fine. */
export function settingsErrors(s: { time_zone?: string; locale?: string; measurement_system?: string }): Array<{ parameter: string; error: string }> {
  const out: Array<{ parameter: string; error: string }> = [];
  if (s.time_zone !== undefined && !isValidTimeZone(s.time_zone)) out.push({ parameter: 'time_zone', error: `unknown time zone ${s.time_zone} (an IANA name such as Europe/Berlin)` });
  if (s.locale !== undefined && !LOCALE_RULE.test(s.locale)) out.push({ parameter: 'locale', error: 'expected a locale such as en, ru or pt-BR' });
  if (s.measurement_system !== undefined && !(MEASUREMENT_SYSTEMS as readonly string[]).includes(s.measurement_system)) out.push({ parameter: 'measurement_system', error: `expected one of ${MEASUREMENT_SYSTEMS.join(', ')}` });
  return out;
}
