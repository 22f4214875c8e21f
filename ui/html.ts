/*
 * HTML that is escaped by construction: every value put into an `html` template is escaped
 * unless it is itself `Html` made by `html` (already escaped) or by `raw()` (trusted markup this
 * code wrote, never user text). Arrays are joined, null/undefined/false render nothing.
 */

const HTML_MARK = Symbol('html');

export interface Html {
  readonly [HTML_MARK]: true;
  readonly text: string;
}

function make(text: string): Html {
  return { [HTML_MARK]: true, text };
}

export function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && HTML_MARK in value;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

export type HtmlValue = Html | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isHtml(value)) return value.text;
  return escapeHtml(String(value));
}

/** The tagged template: `html\`<p>${userText}</p>\`` escapes userText. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return make(out);
}

/** Markup written by this program (an SVG path, a constant). Never pass user-supplied text. */
export function raw(trusted: string): Html {
  return make(trusted);
}

/**
 * A URL for an href built from our own path and query parameters: each parameter is encoded, so
 * user text can never become a `javascript:` URL (the path always starts with `/`).
 */
export function href(
  path: string,
  params: Record<string, string | number | undefined> = {},
): string {
  if (!path.startsWith('/')) throw new Error(`href: ${path} is not a local path`);
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== '') query.set(k, String(v));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A path segment from user data (an id, an agent name), encoded. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
