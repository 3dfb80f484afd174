/** A screen's view of the live states: re-renders at most every `everyMs`, however often states arrive. */
import { useEffect, useState } from 'react';
import type { SourceState } from '../api/types.ts';
import type { LiveStates } from './live.ts';

const EMPTY: ReadonlyMap<number, SourceState> = new Map();

export function useLiveStates(live: LiveStates | null, everyMs = 500): { states: ReadonlyMap<number, SourceState>; version: number } {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (!live) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = live.onChange(() => {
      timer ??= setTimeout(() => {
        timer = null;
        setVersion((v) => v + 1);
      }, everyMs);
    });
    setVersion((v) => v + 1);
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [live, everyMs]);
  return { states: live?.states ?? EMPTY, version };
}
