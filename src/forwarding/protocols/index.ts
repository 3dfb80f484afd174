/** The wire formats a retranslator can forward in: one entry per format and version (retranslator/protocol/list). */
import type { ForwardProtocol } from '../types.ts';
import { egts } from './egts.ts';
import { jsonWebhook } from './json-webhook.ts';
import { mqtt311, mqtt5 } from './mqtt.ts';
import { osmandGet, osmandPost } from './osmand.ts';
import { wialonIps11, wialonIps20 } from './wialon-ips.ts';
import { wialonRetranslator } from './wialon-retranslator.ts';

export const FORWARD_PROTOCOLS: readonly ForwardProtocol[] = [wialonIps20, wialonIps11, jsonWebhook, osmandGet, osmandPost, mqtt311, mqtt5, egts, wialonRetranslator];

export function forwardProtocol(id: number): ForwardProtocol | undefined {
  return FORWARD_PROTOCOLS.find((p) => p.id === id);
}
