/**
 * Tracker settings (issue 23; docs/api.md "Where we differ from the public documentation").
 *
 * `tracker/settings/read|update` are the documented calls: the tracker's own settings, `label` and
 * `group_id`. What answered under that name before, the processing settings of issue 5 (trip and
 * parking detection, jump filter, interval mode, speed limit; docs/telemetry.md), has a name of its
 * own: `tracker/processing_settings/read|update`. `tracker/settings/update` with our older
 * `settings` object is still read as the processing update (deployed clients set speed limits so).
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { TrackerSettings } from '../telemetry/types.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker } from './tracker.ts';
import type { UserRow } from '../store/users.ts';

/** Processing settings of a tracker (issue 5; docs/telemetry.md): how trips, parkings and jumps are told apart. */
const processingSchema = z.object({
  parking_min_seconds: z.number().int().min(30).max(86_400),
  parking_speed_kmh: z.number().min(0).max(50),
  ignition_ends_trip: z.boolean(),
  max_jump_speed_kmh: z.number().min(50).max(2000),
  future_tolerance_seconds: z.number().int().min(0).max(86_400),
  interval_mode_gap_seconds: z.number().int().min(60).max(86_400),
  cluster_radius_meters: z.number().int().min(10).max(10_000),
  /** km/h; null: no limit (speeding events, docs/events.md). */
  speed_limit: z.number().min(1).max(1000).nullable(),
});
type ProcessingView = z.infer<typeof processingSchema>;

function processingView(s: TrackerSettings): ProcessingView {
  return {
    parking_min_seconds: s.parkingMinSeconds,
    parking_speed_kmh: s.parkingSpeedKmh,
    ignition_ends_trip: s.ignitionEndsTrip,
    max_jump_speed_kmh: s.maxJumpSpeedKmh,
    future_tolerance_seconds: s.futureToleranceSeconds,
    interval_mode_gap_seconds: s.intervalModeGapSeconds,
    cluster_radius_meters: s.clusterRadiusMeters,
    speed_limit: s.speedLimitKmh,
  };
}

/** Change some processing settings; the tracker's history is reprocessed with them. */
async function updateProcessing(services: Services, owner: UserRow, trackerId: number, changes: Partial<ProcessingView>): Promise<void> {
  const data = services.store.data;
  const t = await ownTracker(services, owner, trackerId, 204);
  if (t.clone) throw new DomainError(219);
  const v = { ...processingView(await data.telemetry.settings(t.source_id)), ...changes };
  await data.telemetry.setSettings(t.source_id, {
    parkingMinSeconds: v.parking_min_seconds,
    parkingSpeedKmh: v.parking_speed_kmh,
    ignitionEndsTrip: v.ignition_ends_trip,
    maxJumpSpeedKmh: v.max_jump_speed_kmh,
    futureToleranceSeconds: v.future_tolerance_seconds,
    intervalModeGapSeconds: v.interval_mode_gap_seconds,
    clusterRadiusMeters: v.cluster_radius_meters,
    speedLimitKmh: v.speed_limit,
  });
}

const processingRead = defineCall({
  path: 'tracker/processing_settings/read',
  summary: 'Processing settings of a tracker (trip/parking segmentation, jump filter, interval mode, speed limit).',
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, params }) {
    const t = await ownTracker(services, owner, params.tracker_id, 204);
    return { value: processingView(await services.store.data.telemetry.settings(t.source_id)) };
  },
});

const processingUpdate = defineCall({
  path: 'tracker/processing_settings/update',
  summary: "Change a tracker's processing settings (partial); its history is reprocessed with them.",
  right: 'tracker_configure',
  params: z.object({ tracker_id: id, settings: processingSchema.partial() }),
  async handler({ services, owner, params }) {
    await updateProcessing(services, owner, params.tracker_id, params.settings);
  },
});

/** The owner's tracker, not blocked (documented: 201 unknown, 208 blocked). */
async function usableTracker(services: Services, owner: UserRow, trackerId: number) {
  const t = await ownTracker(services, owner, trackerId, 201);
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${trackerId}`);
  return t;
}

const settingsRead = defineCall({
  path: 'tracker/settings/read',
  summary: "The tracker's label and group_id (the department of its employee: 0 none, -1 no employee).",
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, params }) {
    const t = await usableTracker(services, owner, params.tracker_id);
    return { settings: { label: t.label, group_id: t.group_id } };
  },
});

// Documented: 1 to 60 printable characters, without < and >.
const trackerLabel = z
  .string()
  .min(1)
  .max(60)
  .regex(/^[^<>\p{Cc}]+$/u, 'printable characters without < and >');

const settingsUpdate = defineCall({
  path: 'tracker/settings/update',
  summary: "Rename a tracker (label). group_id is read only (the spec's Tracker): accepted when it is the tracker's own.",
  right: 'tracker_update',
  params: z.object({
    tracker_id: id,
    label: trackerLabel.optional(),
    group_id: z.number().int().optional(),
    /** Ours before issue 23: the processing settings, now tracker/processing_settings/update. */
    settings: processingSchema.partial().optional(),
  }),
  async handler({ services, owner, user, params }) {
    if (params.settings !== undefined && params.label === undefined) {
      // A sub-user needs the right that guards the processing settings too.
      if (user.parent_id && !(JSON.parse(user.rights) as string[]).includes('tracker_configure')) throw new DomainError(13, {}, 'Operation not permitted: the right tracker_configure is required');
      await updateProcessing(services, owner, params.tracker_id, params.settings);
      return;
    }
    if (params.label === undefined) throw invalidParams([{ parameter: 'label', error: 'required' }]);
    const t = await usableTracker(services, owner, params.tracker_id);
    if (params.group_id !== undefined && params.group_id !== t.group_id) {
      throw invalidParams([{ parameter: 'group_id', error: `read only: the department of the tracker's employee (${t.group_id}); change the employee's department_id instead` }]);
    }
    await services.store.data.trackers.setLabel(t.id, params.label);
  },
});

export const trackerSettingsCalls = [settingsRead, settingsUpdate, processingRead, processingUpdate];
