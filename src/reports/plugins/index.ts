/** The report plugins by id (the ids of the API the spec describes; docs/reports.md lists them). */
import { checkinsPlugin } from './checkins.ts';
import { engineHoursPlugin } from './engine-hours.ts';
import { eventsPlugin } from './events.ts';
import { formCompletionPlugin } from './form-completion.ts';
import { fuelPlugin } from './fuel.ts';
import { pointsPlugin } from './points.ts';
import { speedViolationsPlugin } from './speed-violations.ts';
import { stopsPlugin } from './stops.ts';
import { tasksPlugin } from './tasks.ts';
import { tripsPlugin } from './trips.ts';
import type { ReportPlugin } from './types.ts';
import { visitsPlugin } from './visits.ts';
import { workStatusesPlugin } from './work-statuses.ts';
import { zoneCrossingsPlugin } from './zone-crossings.ts';

export const PLUGINS: ReadonlyMap<number, ReportPlugin> = new Map(
  ([tripsPlugin, stopsPlugin, engineHoursPlugin, visitsPlugin, fuelPlugin, eventsPlugin, speedViolationsPlugin, tasksPlugin, workStatusesPlugin, formCompletionPlugin, checkinsPlugin, zoneCrossingsPlugin, pointsPlugin] as ReportPlugin[]).map((p) => [p.id, p]),
);

export type { ReportPlugin, PluginContext, ReportTracker, CommonParams } from './types.ts';
