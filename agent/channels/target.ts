/** Where text can be delivered: written `telegram:<chat_id>` or `discord:<channel_id>` in config. */
export interface ChannelTarget {
  channel: string;
  chatId: string;
}
