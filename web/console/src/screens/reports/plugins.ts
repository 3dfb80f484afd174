/**
 * The report types the console offers: the plugin ids of report/tracker/generate (docs/reports.md,
 * "Plugins"), with the members the form asks for. Other members keep the server's defaults.
 */
import type { MessageKey } from '../../i18n/i18n.ts';

export interface PluginChoice {
  id: number;
  title: MessageKey;
  /** Speed violations: `max_speed` (km/h) and `min_duration_minutes` are required. */
  speedLimit?: boolean;
  /** At most one day (the point report: 211 beyond it). */
  oneDay?: boolean;
}

export const PLUGINS: PluginChoice[] = [
  { id: 4, title: 'reports.plugin.4' },
  { id: 6, title: 'reports.plugin.6' },
  { id: 7, title: 'reports.plugin.7' },
  { id: 10, title: 'reports.plugin.10' },
  { id: 8, title: 'reports.plugin.8' },
  { id: 89, title: 'reports.plugin.89' },
  { id: 11, title: 'reports.plugin.11' },
  { id: 27, title: 'reports.plugin.27', speedLimit: true },
  { id: 42, title: 'reports.plugin.42' },
  { id: 47, title: 'reports.plugin.47' },
  { id: 70, title: 'reports.plugin.70' },
  { id: 80, title: 'reports.plugin.80' },
  { id: 91, title: 'reports.plugin.91', oneDay: true },
];
