/**
 * user/settings/read (documented; docs/reports.md "The user's settings"): the user's own settings as
 * update changes them and user/get_info shows them; a master also gets the documented
 * file_storage_settings and balance_alert_settings, which we do not keep (files are never
 * overwritten, no balance alerts are sent), so they answer what the server does.
 *
 * user/settings/update (issue 12, documented; docs/reports.md): the user's own time zone, locale,
 * measurement system, geocoder and route provider, as user/get_info shows them and reports format
 * with them. Only the members
 * given change; at least one is needed. Each is checked (code 7 naming it): the time zone against
 * Intl's zone names, the locale's form, the measurement system among metric, imperial and us.
 */
import { z } from 'zod';
import { MEASUREMENT_SYSTEMS, settingsErrors } from '../accounts/settings.ts';
import { invalidParams } from '../core/errors.ts';
import { defineCall } from './kernel.ts';
import { geocoderParam, routeProviderParam } from './schemas.ts';
import { holdsRight } from './rights.ts';

const read = defineCall({
  path: 'user/settings/read',
  summary: "The user's settings (time zone, locale, measurement system, geocoder, route provider); a master also gets file_storage_settings and balance_alert_settings.",
  params: z.object({}),
  handler({ user }) {
    const settings = {
      time_zone: user.time_zone,
      locale: user.locale,
      measurement_system: user.measurement_system,
      geocoder: user.default_geocoder,
      route_provider: user.route_provider,
      // No SMS notifications are sent, so none are transliterated.
      translit: false,
    };
    // Documented: these two need the right admin, which only masters hold.
    if (!holdsRight(user, 'admin')) return { settings };
    return { settings, file_storage_settings: { auto_overwrite: false }, balance_alert_settings: { emails: [] } };
  },
});

const update = defineCall({
  path: 'user/settings/update',
  summary: 'Change the time zone, locale or measurement system (metric, imperial, us) of the user; only the members given change.',
  // The documented translit, balance_alert_settings and file_storage_settings are taken and have no
  // effect: no SMS is sent, no balance alert, no file overwritten (docs/api.md).
  params: z.object({
    time_zone: z.string().max(64).optional(),
    locale: z.string().max(16).optional(),
    measurement_system: z.enum(MEASUREMENT_SYSTEMS).optional(),
    geocoder: geocoderParam,
    route_provider: routeProviderParam,
  }),
  async handler({ services, user, params }) {
    const { geocoder, route_provider, ...rest } = params;
    if (Object.values(params).every((v) => v === undefined)) throw invalidParams([{ parameter: 'time_zone', error: 'give at least one of time_zone, locale, measurement_system, geocoder, route_provider' }]);
    const wrong = settingsErrors(rest);
    if (wrong.length) throw invalidParams(wrong);
    await services.store.data.users.updateSettings(user.id, { ...rest, default_geocoder: geocoder, route_provider });
  },
});

export const userSettingsCalls = [read, update];
