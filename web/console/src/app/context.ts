/** What every screen may read: the API client of the session, the user's settings, the map settings, the live states. */
import { createContext, useContext } from 'react';
import type { Api } from '../api/client.ts';
import type { Tracker } from '../api/types.ts';
import type { LiveStates } from '../live/live.ts';
import { OFFLINE, type MapSettings } from '../../../shared/map/config.ts';

export interface SessionContext {
  api: Api;
  timeZone: string;
  /** The user's trackers (tracker/list at sign-in). */
  trackers: Tracker[];
  live: LiveStates | null;
  signOut: () => void;
}

export const Session = createContext<SessionContext | null>(null);
export const MapSettingsContext = createContext<MapSettings>(OFFLINE);

export function useSession(): SessionContext {
  const s = useContext(Session);
  if (!s) throw new Error('useSession outside a signed-in screen');
  return s;
}

export const useMapSettings = () => useContext(MapSettingsContext);
