/**
 * Chat delivery: outgoing messages wait in the database as PENDING and go out through the
 * device's protocol as soon as it is connected (at once, or when it next connects, also after a
 * restart); DELIVERED once written to the device's connection. Text from devices becomes
 * INCOMING messages of every live tracker over the device.
 */
import { protocolByName } from '../../protocols/index.ts';
import type { ChatStore } from '../store/chat.ts';
import type { GatewayHooks, OutboundChannel } from './core.ts';
import type { Source } from './registry.ts';

export class ChatDelivery {
  private channels = new Map<number, OutboundChannel>();
  private sending = new Set<number>();

  constructor(
    private chat: ChatStore,
    private now: () => number = Date.now,
  ) {}

  /** Whether a device speaking `protocol` can receive chat text. */
  static carriesText(protocol: string): boolean {
    const p = protocolByName(protocol);
    return !!p?.carriesText && !!p.encode;
  }

  /** Gateway hooks that feed this service. */
  hooks(): Pick<GatewayHooks, 'online' | 'offline' | 'texts'> {
    return {
      online: (source, channel) => {
        this.channels.set(source.id, channel);
        void this.flush(source.id);
      },
      offline: (source, channel) => {
        if (this.channels.get(source.id) === channel) this.channels.delete(source.id);
      },
      texts: (source, texts) => {
        for (const t of texts) for (const trackerId of source.trackerIds) this.chat.addIncoming(trackerId, source.id, t.text, t.time, null);
      },
    };
  }

  isOnline(sourceId: number): boolean {
    return !!this.channels.get(sourceId)?.open;
  }

  /** Send what is pending for a device, in order, if it is connected. */
  async flush(sourceId: number): Promise<void> {
    if (this.sending.has(sourceId)) return;
    this.sending.add(sourceId);
    try {
      // Again until nothing is pending: messages may arrive while earlier ones are being written.
      for (let batch = this.chat.pending(sourceId); batch.length; batch = this.chat.pending(sourceId)) {
        for (const m of batch) {
          const channel = this.channels.get(sourceId);
          if (!channel?.open) return;
          const bytes = channel.protocol.encode!({ type: 'message', attributes: { message: m.text } }, { deviceId: channel.ctx.deviceId ?? '', now: this.now(), config: channel.ctx.config });
          await channel.send(bytes);
          this.chat.delivered(m.id, this.now());
        }
      }
    } catch {
      // the connection dropped: the rest stays PENDING for the next connection
    } finally {
      this.sending.delete(sourceId);
    }
  }
}
export type { Source };
