import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  htmlToPlain,
  renderTelegramHtml,
} from '../../../../agent/channels/telegram/render.js';
import { splitTelegramHtml } from '../../../../agent/channels/telegram/split.js';

/** Tags left open or closed out of order in a part; empty when it is balanced. */
function unbalanced(html: string): string[] {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z-]+)[^>]*>/g)) {
    if (m[1] !== '/') stack.push(m[2]!);
    else if (stack.pop() !== m[2]) return [`stray </${m[2]}>`];
  }
  return stack;
}

describe('Markdown to Telegram HTML', () => {
  it('renders emphasis, code, links, lists, headings and quotes as Telegram tags', () => {
    const html = renderTelegramHtml(
      '# Title\n\n**bold** *it* ~~gone~~ `x<y` [site](https://example.org/?a=1&b=2)\n\n- one\n- two\n\n> said\n\n```ts\nif (a < b) {}\n```',
    );
    expect(html).toBe(
      [
        '<b>Title</b>',
        '<b>bold</b> <i>it</i> <s>gone</s> <code>x&lt;y</code> <a href="https://example.org/?a=1&amp;b=2">site</a>',
        '• one\n• two',
        '<blockquote>said</blockquote>',
        '<pre><code class="language-ts">if (a &lt; b) {}</code></pre>',
      ].join('\n\n'),
    );
  });

  it('shows hostile text as text: raw HTML, entities, quotes and unsafe links are escaped or dropped', () => {
    const html = renderTelegramHtml(
      'Hi <script>alert("x")</script> & <b onclick="y">bold?</b> [click](javascript:alert(1)) "q" \\*not em\\*',
    );
    expect(html).not.toMatch(/<script|<b onclick|href="javascript/);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('&amp;');
    expect(html).toContain('*not em*');
    // Only tags Telegram knows survive.
    for (const tag of html.matchAll(/<\/?([a-z-]+)/g))
      expect(['b', 'i', 's', 'code', 'pre', 'a', 'blockquote']).toContain(tag[1]);
    expect(htmlToPlain(html)).toContain('<script>alert("x")</script> & <b onclick="y">bold?</b>');
  });

  it('keeps Markdown characters inside code and URLs as they are', () => {
    expect(renderTelegramHtml('`a*b*c` and https://x.org/a_b_c')).toBe(
      '<code>a*b*c</code> and <a href="https://x.org/a_b_c">https://x.org/a_b_c</a>',
    );
    expect(escapeHtml('<&>')).toBe('&lt;&amp;&gt;');
  });

  it('shows a table as aligned text in a pre block', () => {
    expect(renderTelegramHtml('| a | bb |\n|---|---|\n| 1 | 2 |')).toBe(
      '<pre>a | bb\n--|---\n1 | 2</pre>',
    );
  });
});

describe('splitting rendered replies', () => {
  it('keeps a short reply whole and drops one that shows nothing', () => {
    expect(splitTelegramHtml('<b>hi</b>')).toEqual(['<b>hi</b>']);
    expect(splitTelegramHtml('  \n ')).toEqual([]);
    expect(splitTelegramHtml('<b> </b>')).toEqual([]);
  });

  it('cuts a 9,000-character reply in order into parts of at most 4,096 with balanced code blocks', () => {
    const prose = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${'word '.repeat(60)}`);
    const code = Array.from({ length: 250 }, (_, i) => `line ${i} if (a < b && c) {}`);
    const markdown = `${prose.join('\n\n')}\n\n\`\`\`js\n${code.join('\n')}\n\`\`\`\n\nThe end.`;
    expect(markdown.length).toBeGreaterThan(9000);
    const parts = splitTelegramHtml(renderTelegramHtml(markdown));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4096);
      expect(part.trim()).not.toBe('');
      expect(unbalanced(part)).toEqual([]);
    }
    // Nothing lost, nothing reordered: the text of the parts is the text of the whole.
    const words = (s: string) => htmlToPlain(s).split(/\s+/).filter(Boolean);
    expect(parts.flatMap(words)).toEqual(words(renderTelegramHtml(markdown)));
    // The code block was cut, and each piece is a code block of its own.
    const codeParts = parts.filter((p) => p.includes('line 1'));
    expect(
      parts.filter((p) => p.includes('<pre><code class="language-js">')).length,
    ).toBeGreaterThan(1);
    expect(codeParts.length).toBeGreaterThan(0);
  });

  it('cuts on a paragraph break before a line break, and never inside an entity', () => {
    const a = 'a'.repeat(60);
    const parts = splitTelegramHtml(`${a}\n\n${a}\nb &amp; c`, 100);
    expect(parts).toEqual([a, `${a}\nb &amp; c`]);
    const dense = splitTelegramHtml('&amp;'.repeat(30), 12);
    for (const p of dense) expect(p).toMatch(/^(&amp;)+$/);
  });
});
