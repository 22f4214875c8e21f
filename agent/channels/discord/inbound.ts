/** The message without the bot's own mention (`<@id>` or `<@!id>`), spaces tidied. */
export function stripMention(content: string, botId: string): string {
  return content
    .replace(new RegExp(`<@!?${botId}>`, 'g'), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}
