/**
 * A telemetry worker. Two kinds of task: `process` a round: each window's points read through the
 * worker's own connection (one read snapshot), the pure pipeline over them, geofences and visits,
 * then all results written in one transaction, in which the tasks the new visits touch are judged
 * (src/telemetry/task-judge.ts) — the round's result carries the task outcomes back, so the main
 * thread neither moves points nor re-reads visits; `simplify` a long track line for the API. State
 * comes in and goes out with every window (JSON); the worker keeps only caches: its connection and
 * the geofence index, rebuilt when the database's `geo` version changes.
 */
import { Piscina } from 'piscina';
import { simplifyLine } from '../src/tracks/simplify.ts';
import { processRound, type RoundResult, type RoundTask, type SimplifyTask } from '../src/telemetry/round.ts';

export default function handle(task: RoundTask | SimplifyTask): RoundResult | ReturnType<typeof Piscina.move> {
  if (task.kind === 'simplify') return Piscina.move(simplifyLine(task.lat, task.lng, task.limit));
  return processRound(task);
}
