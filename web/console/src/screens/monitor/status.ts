/** How a tracker's state reads in the list, the map and the panel. */
import type { SourceState } from '../../api/types.ts';
import { formatNumber, t, type MessageKey } from '../../i18n/i18n.ts';

export const STATUS_COLORS: Record<string, string> = { active: '#1a7f37', idle: '#b35c00', offline: '#6e7781', signal_lost: '#cf222e', just_registered: '#6e7781', just_replaced: '#6e7781', unknown: '#6e7781' };

export function statusOf(s: SourceState | undefined): string {
  return s?.connection_status ?? 'unknown';
}

export function statusText(s: SourceState | undefined): string {
  return t(`status.${statusOf(s)}` as MessageKey);
}

export function speedText(s: SourceState | undefined): string {
  return s?.gps.location ? t('unit.kmh', { value: formatNumber(s.gps.speed) }) : '';
}
