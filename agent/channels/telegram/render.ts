import { Lexer, type Token, type Tokens } from 'marked';

/**
 * The model's Markdown as Telegram's HTML (parse_mode HTML): only the tags Telegram knows (b, i,
 * s, code, pre, a, blockquote), everything else as escaped text. The Markdown is read by marked's
 * lexer (GFM), never by regular expressions, so `*` inside code or a URL stays what it is.
 * Raw HTML the model writes is shown as text, never passed on as markup.
 */
export function renderTelegramHtml(markdown: string): string {
  const tokens = new Lexer({ gfm: true, breaks: false }).lex(markdown);
  return blocks(tokens).trim();
}

/** `&`, `<`, `>` (and `"` for attributes) as Telegram's HTML mode requires. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const escapeAttr = (text: string) => escapeHtml(text).replace(/"/g, '&quot;');

/** The text a rendered part shows, for the plain fallback: tags dropped, entities decoded. */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

function blocks(tokens: Token[]): string {
  const out: string[] = [];
  for (const token of tokens) {
    const html = block(token);
    if (html !== '') out.push(html);
  }
  return out.join('\n\n');
}

function block(token: Token): string {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens);
    case 'heading':
      return `<b>${inline((token as Tokens.Heading).tokens)}</b>`;
    case 'code': {
      const code = token as Tokens.Code;
      const lang = code.lang?.trim().split(/\s+/)[0];
      const body = escapeHtml(code.text);
      return lang && /^[A-Za-z0-9_+#.-]{1,32}$/.test(lang)
        ? `<pre><code class="language-${lang}">${body}</code></pre>`
        : `<pre>${body}</pre>`;
    }
    case 'blockquote':
      return `<blockquote>${blocks((token as Tokens.Blockquote).tokens)}</blockquote>`;
    case 'list':
      return list(token as Tokens.List);
    case 'table':
      return table(token as Tokens.Table);
    case 'hr':
      return '———';
    case 'html':
      return escapeHtml((token as Tokens.HTML).text.trim());
    case 'text':
      return t.tokens ? inline(t.tokens as Token[]) : escapeHtml(String(t.text ?? ''));
    default:
      return escapeHtml(String(t.raw ?? ''));
  }
}

function list(token: Tokens.List, depth = 0): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  const indent = '  '.repeat(depth);
  return token.items
    .map((item, i) => {
      const marker = token.ordered ? `${start + i}.` : '•';
      const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const parts: string[] = [];
      for (const child of item.tokens) {
        if (child.type === 'list') parts.push(list(child as Tokens.List, depth + 1));
        else if (child.type === 'checkbox') continue;
        else {
          const html = block(child);
          if (html !== '') parts.push(parts.length === 0 ? html : `${indent}  ${html}`);
        }
      }
      return `${indent}${marker} ${box}${parts.join('\n')}`;
    })
    .join('\n');
}

/** Tables have no Telegram form: shown as aligned plain text in a pre block. */
function table(token: Tokens.Table): string {
  const cell = (c: Tokens.TableCell) => htmlToPlain(inline(c.tokens));
  const rows = [token.header.map(cell), ...token.rows.map((r) => r.map(cell))];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join(' | ')
      .trimEnd();
  const text = [
    line(rows[0]!),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.slice(1).map(line),
  ];
  return `<pre>${escapeHtml(text.join('\n'))}</pre>`;
}

function inline(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  return tokens.map(inlineOne).join('');
}

function inlineOne(token: Token): string {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case 'text':
      return t.tokens ? inline(t.tokens as Token[]) : escapeHtml(String(t.text ?? ''));
    case 'escape':
      return escapeHtml((token as Tokens.Escape).text);
    case 'strong':
      return `<b>${inline((token as Tokens.Strong).tokens)}</b>`;
    case 'em':
      return `<i>${inline((token as Tokens.Em).tokens)}</i>`;
    case 'del':
      return `<s>${inline((token as Tokens.Del).tokens)}</s>`;
    case 'codespan':
      return `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const label = inline(link.tokens);
      return safeHref(link.href)
        ? `<a href="${escapeAttr(link.href)}">${label}</a>`
        : label || escapeHtml(link.href);
    }
    case 'image': {
      const image = token as Tokens.Image;
      const label = escapeHtml(image.text || 'image');
      return safeHref(image.href) ? `<a href="${escapeAttr(image.href)}">${label}</a>` : label;
    }
    case 'html':
      return escapeHtml((token as Tokens.Tag).text);
    default:
      return escapeHtml(String(t.raw ?? ''));
  }
}

/** Telegram accepts http(s), tg and mailto links; anything else is shown as text. */
function safeHref(href: string): boolean {
  return /^(https?:\/\/|tg:\/\/|mailto:)/i.test(href);
}
