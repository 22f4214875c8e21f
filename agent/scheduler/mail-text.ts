/**
 * The readable text of a raw RFC 822 message, enough for a summary: the first text/plain part
 * (else the first text/html one, tags dropped), decoded from quoted-printable or base64.
 * Not a full MIME parser: attachments and nested forwards are left out.
 */
export function mailText(raw: Buffer | string, max = 4000): string {
  const source = typeof raw === 'string' ? raw : raw.toString('utf8');
  const part = pickPart(source, 0);
  return (part ?? '')
    .replace(/\r\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, max);
}

function split(entity: string): { headers: string; body: string } {
  const at = entity.search(/\r?\n\r?\n/);
  if (at < 0) return { headers: entity, body: '' };
  return { headers: entity.slice(0, at), body: entity.slice(at).replace(/^\r?\n\r?\n/, '') };
}

function header(headers: string, name: string): string | undefined {
  const unfolded = headers.replace(/\r?\n[ \t]+/g, ' ');
  const m = new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(unfolded);
  return m?.[1]?.trim();
}

function pickPart(entity: string, depth: number): string | undefined {
  const { headers, body } = split(entity);
  const type = (header(headers, 'content-type') ?? 'text/plain').toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(header(headers, 'content-type') ?? '')?.[1];
  if (type.startsWith('multipart/') && boundary && depth < 4) {
    const parts = body.split(`--${boundary}`).slice(1, -1);
    const plain = parts.map((p) => p.replace(/^\r?\n/, ''));
    for (const wanted of ['text/plain', 'text/html', 'multipart/'])
      for (const p of plain) {
        const t = (header(split(p).headers, 'content-type') ?? 'text/plain').toLowerCase();
        if (t.startsWith(wanted)) {
          const text = pickPart(p, depth + 1);
          if (text) return text;
        }
      }
    return undefined;
  }
  if (!type.startsWith('text/')) return undefined;
  const decoded = decode(body, header(headers, 'content-transfer-encoding'));
  return type.startsWith('text/html') ? decoded.replace(/<[^>]*>/g, ' ') : decoded;
}

function decode(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const bytes = Buffer.from(
      body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
    return bytes.toString('utf8');
  }
  return body;
}
