/**
 * Chat delivery: outgoing messages wait in the database as PENDING and go out through the
 * device's protocol as soon as it is connected (at once, or when it next connects, also after a
 * restart), in the order they were queued, after the answer to the frame that identified the
 * device. They become DELIVERED when the device confirms them, where the protocol has a command
 * acknowledgement (`commandAcks`: the oldest unconfirmed message is the one confirmed), otherwise
 * once written to the connection. A message written but not confirmed before the connection drops
 * stays PENDING and goes out again on the next connection. Text from devices becomes INCOMING
 * messages of every live tracker over the device.
 */
import { protocolByName } from '../../protocols/index.ts';
import type { ChatStore } from '../store/chat.ts';
import type { GatewayHooks, OutboundChannel } from './core.ts';
import type { Source } from './registry.ts';

export class ChatDelivery {
  private channels = new Map<number, OutboundChannel>();
  private sending = new Set<number>();
  /** Per device: ids of messages written to `channel` and awaiting the device's confirmation, oldest first. */
  private unconfirmed = new Map<number, { channel: OutboundChannel; ids: number[] }>();

  constructor(
    private chat: ChatStore,
    private now: () => number = Date.now,
  ) {}

  /** Whether a device speaking `protocol` can receive chat text. */
  carriesText(protocol: string): boolean {
    const p = protocolByName(protocol);
    return !!p?.carriesText && !!p.encode;
  }

  /** Gateway hooks that feed this service. */
  hooks(): Pick<GatewayHooks, 'online' | 'offline' | 'texts' | 'commandAck'> {
    return {
      online: (source, channel) => {
        this.channels.set(source.id, channel);
        this.unconfirmed.delete(source.id);
        void this.flush(source.id);
      },
      offline: (source, channel) => {
        if (this.channels.get(source.id) === channel) this.channels.delete(source.id);
        // Unconfirmed messages are PENDING again: the next connection sends them once more.
        if (this.unconfirmed.get(source.id)?.channel === channel) this.unconfirmed.delete(source.id);
      },
      commandAck: (source, channel) => {
        const waiting = this.unconfirmed.get(source.id);
        if (waiting?.channel !== channel) return;
        const id = waiting.ids.shift();
        if (id !== undefined) this.chat.delivered(id, this.now());
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
      // Again until nothing new is pending: messages may arrive while earlier ones are being written.
      for (let batch = this.unsent(sourceId); batch.length; batch = this.unsent(sourceId)) {
        for (const m of batch) {
          const channel = this.channels.get(sourceId);
          if (!channel?.open) return;
          const bytes = channel.protocol.encode!({ type: 'message', attributes: { message: m.text } }, { deviceId: channel.ctx.deviceId ?? '', now: this.now(), config: channel.ctx.config });
          if (channel.protocol.commandAcks) {
            // Registered before the write: the confirmation can only follow it.
            let waiting = this.unconfirmed.get(sourceId);
            if (waiting?.channel !== channel) this.unconfirmed.set(sourceId, (waiting = { channel, ids: [] }));
            waiting.ids.push(m.id);
            await channel.send(bytes);
          } else {
            await channel.send(bytes);
            this.chat.delivered(m.id, this.now());
          }
        }
      }
    } catch {
      // the connection dropped: the rest stays PENDING for the next connection
    } finally {
      this.sending.delete(sourceId);
    }
  }

  /** PENDING messages not yet written to the device's current connection. */
  private unsent(sourceId: number) {
    const waiting = this.unconfirmed.get(sourceId)?.ids;
    const pending = this.chat.pending(sourceId);
    return waiting?.length ? pending.filter((m) => !waiting.includes(m.id)) : pending;
  }
}
export type { Source };
