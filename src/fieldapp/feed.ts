/**
 * The field app's task feed (docs/field-app.md): the tasks of the app's tracker and what changed
 * since a cursor. The cursor is a position in the feed journal (migration 021), which triggers
 * write for every change of a task as a tracker sees it, whoever made it.
 */
import { invalidParams } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import type { TaskRow } from '../store/tasks.ts';

/** Without a cursor the app gets the tracker's tasks whose window ended at most this long ago (or later, or never). */
export const SNAPSHOT_PAST_MS = 7 * 86_400_000;
/** Most tasks one full list answers (earliest start first). */
export const SNAPSHOT_LIMIT = 1000;
/** Most journal rows one answer reads; more: `more` is true and the cursor stops there. */
export const FEED_ROWS = 2000;
/** Journal rows older than this are pruned: an app away longer gets the full list again (`reset`). */
export const FEED_KEEP_MS = 30 * 86_400_000;

export interface FeedPage {
  /** Tasks new or changed since the cursor (all current tasks when `reset`). */
  tasks: TaskRow[];
  /** Ids of tasks that left the tracker since the cursor: deleted or assigned elsewhere. */
  removed: number[];
  /** Where the next request continues. */
  cursor: number;
  /** The answer is the whole list, not changes: the app replaces what it holds. */
  reset: boolean;
  /** More changes wait: ask again at once with the new cursor. */
  more: boolean;
}

/**
 * Changes of the tracker's tasks after `cursor`; the whole list without one (or when it was pruned).
 * On the synchronous store, in one snapshot: the task watch (src/api/app-watch.ts) builds its pages
 * synchronously in its poll.
 */
export function taskChanges(store: Store, trackerId: number, cursor: number | undefined, now: number): FeedPage {
  return store.snapshot(() => {
    const feed = store.fieldApp;
    const head = feed.feedHead();
    if (cursor !== undefined && cursor > head) throw invalidParams([{ parameter: 'cursor', error: `is ahead of the feed (at ${head}): pass a cursor this server answered` }]);
    if (cursor === undefined || cursor < feed.feedPruned()) {
      return { tasks: feed.currentTasks(trackerId, now - SNAPSHOT_PAST_MS, SNAPSHOT_LIMIT), removed: [], cursor: head, reset: true, more: false };
    }
    const rows = feed.feedSince(trackerId, cursor, FEED_ROWS);
    const more = rows.length === FEED_ROWS;
    const tasks: TaskRow[] = [];
    const removed: number[] = [];
    for (const id of new Set(rows.map((r) => r.task_id))) {
      const t = feed.taskOf(trackerId, id);
      if (t) tasks.push(t);
      else removed.push(id);
    }
    return { tasks, removed, cursor: more ? rows[rows.length - 1].seq : head, reset: false, more };
  });
}

/** Whether the tracker's feed has rows after `cursor` (the watch's cheap test before building a page). */
export function hasChanges(store: Store, trackerId: number, cursor: number): boolean {
  return store.fieldApp.feedSince(trackerId, cursor, 1).length > 0;
}
