/*
 * brain_snippet(words, column, tokens, open, close, ellipsis, text0, text1, ...): the snippet
 * FTS5's snippet(index, column, open, close, ellipsis, tokens) gives of a row holding the texts
 * text0, text1, ... in an index with the indexes' tokenizer (porter over unicode61, diacritics
 * removed: schema.sql), when the row is matched by `"w1" OR "w2" OR ...` for the words of `words`
 * (separated by U+001F); NULL when no text holds any of them (the row would not match).
 *
 * snippet() needs an index holding the text: the message index holds none of the stop words
 * (migration 0007), and a temporary index of a search's hits costs seven statements and an index
 * built afresh, a fifth of a small brain's search. Here each text is tokenized once, as the index
 * would, and FTS5's choice is made again from the positions found: each instance of a word starts a window of `tokens`
 * tokens, scored 1000 for each word first seen in it and 1 for each repeat, moved back so that
 * its hits sit in its middle; the start of the sentence before an instance is tried too, with a
 * bonus (120 at the text's start, else 100). The best window of the chosen column (-1: of the
 * best column) is written out with its hits marked, adjacent ones marked apart, and the ellipsis
 * where text is left out. test/src/search/snippets.test.ts compares it with snippet() itself.
 */
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "brain_fts.h"

/* One token of a text: its bytes (in Snippet.tokens' buffer) and where it lies in the text. */
typedef struct Token {
  int at;    /* offset of its bytes in the token buffer */
  int n;     /* its length in bytes */
  int start; /* its first byte in the text */
  int end;   /* one past its last byte in the text */
} Token;

/* A word of the query: the tokens it becomes (one for a word; more where the tokenizer splits it). */
typedef struct Phrase {
  int first; /* index of its first token in Query.tokens */
  int n;     /* how many */
} Phrase;

/* A phrase found in a text, at a token position. */
typedef struct Instance {
  int phrase;
  int pos;
} Instance;

/* A growing list of tokens with their bytes. */
typedef struct Tokens {
  Token *list;
  int n, cap;
  char *bytes;
  int used, room;
  int nomem;
} Tokens;

typedef struct Query {
  fts5_tokenizer api;
  Fts5Tokenizer *tokenizer;
  Tokens tokens;
  Phrase *phrases;
  int nPhrase;
} Query;

static void tokens_reset(Tokens *t) {
  t->n = 0;
  t->used = 0;
}

static void tokens_free(Tokens *t) {
  sqlite3_free(t->list);
  sqlite3_free(t->bytes);
  memset(t, 0, sizeof(*t));
}

static int token_add(void *p, int tflags, const char *token, int nToken, int start, int end) {
  Tokens *t = (Tokens *)p;
  /* The tokenizer makes no colocated tokens; an index counts only the others as positions. */
  if (tflags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    Token *list = sqlite3_realloc64(t->list, (sqlite3_uint64)cap * sizeof(Token));
    if (!list) return SQLITE_NOMEM;
    t->list = list;
    t->cap = cap;
  }
  if (t->used + nToken > t->room) {
    int room = t->room ? 2 * t->room : 512;
    while (room < t->used + nToken) room *= 2;
    char *bytes = sqlite3_realloc64(t->bytes, (sqlite3_uint64)room);
    if (!bytes) return SQLITE_NOMEM;
    t->bytes = bytes;
    t->room = room;
  }
  memcpy(t->bytes + t->used, token, (size_t)nToken);
  t->list[t->n++] = (Token){t->used, nToken, start, end};
  t->used += nToken;
  return SQLITE_OK;
}

static void query_free(void *p) {
  Query *q = (Query *)p;
  if (!q) return;
  if (q->tokenizer) q->api.xDelete(q->tokenizer);
  tokens_free(&q->tokens);
  sqlite3_free(q->phrases);
  sqlite3_free(q);
}

/* The query's words as phrases of tokens, and the tokenizer that made them. */
static int query_new(fts5_api *fts5, const char *words, int n, Query **out) {
  Query *q = sqlite3_malloc(sizeof(Query));
  if (!q) return SQLITE_NOMEM;
  memset(q, 0, sizeof(*q));
  void *user = 0;
  int rc = fts5->xFindTokenizer(fts5, "porter", &user, &q->api);
  const char *args[] = {"unicode61", "remove_diacritics", "2"};
  if (rc == SQLITE_OK) rc = q->api.xCreate(user, args, 3, &q->tokenizer);
  int most = 1;
  for (int i = 0; i < n; i++) most += words[i] == '\x1f';
  if (rc == SQLITE_OK) {
    q->phrases = sqlite3_malloc64((sqlite3_uint64)most * sizeof(Phrase));
    if (!q->phrases) rc = SQLITE_NOMEM;
  }
  for (int from = 0; rc == SQLITE_OK && from <= n;) {
    int to = from;
    while (to < n && words[to] != '\x1f') to++;
    int first = q->tokens.n;
    if (to > from)
      rc = q->api.xTokenize(q->tokenizer, &q->tokens, FTS5_TOKENIZE_QUERY, words + from, to - from,
                            token_add);
    /* A word the tokenizer makes nothing of matches nothing, as its quoted phrase would. */
    if (rc == SQLITE_OK && q->tokens.n > first)
      q->phrases[q->nPhrase++] = (Phrase){first, q->tokens.n - first};
    from = to + 1;
  }
  if (rc != SQLITE_OK) {
    query_free(q);
    return rc;
  }
  *out = q;
  return SQLITE_OK;
}

static int same_token(const Tokens *a, int i, const Tokens *b, int j) {
  const Token *x = &a->list[i], *y = &b->list[j];
  return x->n == y->n && memcmp(a->bytes + x->at, b->bytes + y->at, (size_t)x->n) == 0;
}

/* The instances of the query's phrases in a text's tokens, by position, then phrase (FTS5's order). */
static int find_instances(const Query *q, const Tokens *doc, Instance **list, int *n, int *cap) {
  *n = 0;
  for (int pos = 0; pos < doc->n; pos++) {
    for (int p = 0; p < q->nPhrase; p++) {
      const Phrase *ph = &q->phrases[p];
      if (pos + ph->n > doc->n) continue;
      int j = 0;
      while (j < ph->n && same_token(&q->tokens, ph->first + j, doc, pos + j)) j++;
      if (j < ph->n) continue;
      if (*n == *cap) {
        int grown = *cap ? 2 * *cap : 16;
        Instance *more = sqlite3_realloc64(*list, (sqlite3_uint64)grown * sizeof(Instance));
        if (!more) return SQLITE_NOMEM;
        *list = more;
        *cap = grown;
      }
      (*list)[(*n)++] = (Instance){p, pos};
    }
  }
  return SQLITE_OK;
}

/* FTS5's score of the window of `tokens` tokens from `from`, and where it would move the window to
   centre its hits (fts5SnippetScore). */
static int window_score(const Query *q, const Instance *inst, int nInst, int size, int from,
                        int tokens, unsigned char *seen, int *moved) {
  memset(seen, 0, (size_t)q->nPhrase);
  sqlite3_int64 end = (sqlite3_int64)from + tokens;
  int score = 0, first = -1, last = 0;
  /* Instances are in position order: the window's are a run found by halving, so a text of many
     hits costs their number times the window, not its square. */
  int lo = 0, hi = nInst;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (inst[mid].pos < from) lo = mid + 1;
    else hi = mid;
  }
  for (int i = lo; i < nInst && inst[i].pos < end; i++) {
    score += seen[inst[i].phrase] ? 1 : 1000;
    seen[inst[i].phrase] = 1;
    if (first < 0) first = inst[i].pos;
    last = inst[i].pos + q->phrases[inst[i].phrase].n;
  }
  if (moved) {
    sqlite3_int64 adj = first - (tokens - (last - first)) / 2;
    if (adj + tokens > size) adj = size - tokens;
    if (adj < 0) adj = 0;
    *moved = (int)adj;
  }
  return score;
}

/* Whether the token at `pos` starts a sentence: the first, or one after a '.' or ':' and white
   space (fts5SentenceFinderCb). */
static int starts_sentence(const char *text, const Tokens *doc, int pos) {
  if (pos == 0) return 1;
  int i = doc->list[pos].start - 1;
  char c = 0;
  for (; i >= 0; i--) {
    c = text[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
  }
  return i != doc->list[pos].start - 1 && i >= 0 && (c == '.' || c == ':');
}

/* Overlapping instances coalesced: each run [start, end] of token positions is marked once
   (fts5CInstIterNext). */
typedef struct Runs {
  const Query *q;
  const Instance *inst;
  int nInst, next;
  int start, end; /* the current run; -1 when there is none left */
} Runs;

static void run_next(Runs *r) {
  r->start = r->end = -1;
  while (r->next < r->nInst) {
    const Instance *i = &r->inst[r->next];
    int s = i->pos, e = i->pos + r->q->phrases[i->phrase].n - 1;
    if (r->start < 0) {
      r->start = s;
      r->end = e;
    } else if (s <= r->end) {
      if (e > r->end) r->end = e;
    } else {
      break;
    }
    r->next++;
  }
}

/* The text's tokens from `from` to `to` (inclusive) with each run marked, as FTS5's highlight
   callback writes a range (fts5HighlightCb); the offset in the text it stopped at. */
static int write_range(sqlite3_str *out, const Query *q, const char *text, const Tokens *doc,
                       const Instance *inst, int nInst, int from, int to, const char *open,
                       const char *close) {
  Runs run = {q, inst, nInst, 0, -1, -1};
  run_next(&run);
  while (run.start >= 0 && run.start < from) run_next(&run);
  int off = 0, isOpen = 0;
  for (int pos = from; pos <= to && pos < doc->n; pos++) {
    int start = doc->list[pos].start, end = doc->list[pos].end;
    if (from && pos == from) off = start;
    if (isOpen && (pos <= run.start || run.start < 0) && start > off) {
      sqlite3_str_appendall(out, close);
      isOpen = 0;
    }
    if (pos == run.start && !isOpen) {
      sqlite3_str_append(out, text + off, start - off);
      sqlite3_str_appendall(out, open);
      off = start;
      isOpen = 1;
    }
    if (pos == run.end) {
      if (!isOpen) {
        sqlite3_str_appendall(out, open);
        isOpen = 1;
      }
      sqlite3_str_append(out, text + off, end - off);
      off = end;
      run_next(&run);
    }
    if (pos == to) {
      if (isOpen) {
        if (run.start >= 0 && pos >= run.start) {
          sqlite3_str_append(out, text + off, end - off);
          off = end;
        }
        sqlite3_str_appendall(out, close);
        isOpen = 0;
      }
      sqlite3_str_append(out, text + off, end - off);
      off = end;
    }
  }
  if (isOpen) sqlite3_str_appendall(out, close);
  return off;
}

static void brain_snippet(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  if (nVal < 7) {
    sqlite3_result_error(ctx, "brain_snippet: words, column, tokens, open, close, ellipsis, texts",
                         -1);
    return;
  }
  fts5_api *fts5 = (fts5_api *)sqlite3_user_data(ctx);
  int rc = SQLITE_OK;
  Query *q = (Query *)sqlite3_get_auxdata(ctx, 0);
  if (!q) {
    const char *words = (const char *)sqlite3_value_text(apVal[0]);
    rc = query_new(fts5, words ? words : "", sqlite3_value_bytes(apVal[0]), &q);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    sqlite3_set_auxdata(ctx, 0, q, query_free);
    q = (Query *)sqlite3_get_auxdata(ctx, 0);
    if (!q) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  int column = sqlite3_value_int(apVal[1]);
  int tokens = sqlite3_value_int(apVal[2]);
  const char *open = (const char *)sqlite3_value_text(apVal[3]);
  const char *close = (const char *)sqlite3_value_text(apVal[4]);
  const char *ellipsis = (const char *)sqlite3_value_text(apVal[5]);
  if (!open) open = "";
  if (!close) close = "";
  if (!ellipsis) ellipsis = "";
  int nCol = nVal - 6;

  Tokens doc = {0}, best = {0};
  Instance *inst = 0, *bestInst = 0;
  int nInst = 0, capInst = 0, nBestInst = 0, capBestInst = 0;
  unsigned char *seen = sqlite3_malloc(q->nPhrase > 0 ? q->nPhrase : 1);
  if (!seen) rc = SQLITE_NOMEM;
  int matched = 0, bestCol = column >= 0 ? column : 0, bestStart = 0, bestScore = 0;
  int bestTokenized = 0;
  for (int c = 0; rc == SQLITE_OK && c < nCol; c++) {
    const char *text = (const char *)sqlite3_value_text(apVal[6 + c]);
    int nText = sqlite3_value_bytes(apVal[6 + c]);
    if (!text || q->nPhrase == 0) continue;
    tokens_reset(&doc);
    rc = q->api.xTokenize(q->tokenizer, &doc, FTS5_TOKENIZE_DOCUMENT, text, nText, token_add);
    if (rc == SQLITE_OK) rc = find_instances(q, &doc, &inst, &nInst, &capInst);
    if (rc != SQLITE_OK) break;
    if (nInst > 0) matched = 1;
    if (column >= 0 && column != c) continue;
    int size = doc.n;
    int improved = 0;
    /* The last sentence start at or before each instance, found walking forward once. */
    int sentence = 0, walked = 0;
    for (int i = 0; i < nInst; i++) {
      int io = inst[i].pos, moved;
      int score = window_score(q, inst, nInst, size, io, tokens, seen, &moved);
      if (score > bestScore) {
        bestScore = score;
        bestCol = c;
        bestStart = moved;
        improved = 1;
      }
      if (size > tokens) {
        for (; walked <= io; walked++)
          if (starts_sentence(text, &doc, walked)) sentence = walked;
        if (sentence < io) {
          score = window_score(q, inst, nInst, size, sentence, tokens, seen, 0);
          score += sentence == 0 ? 120 : 100;
          if (score > bestScore) {
            bestScore = score;
            bestCol = c;
            bestStart = sentence;
            improved = 1;
          }
        }
      }
    }
    /* Keep the chosen column's tokens and instances to write it out (swap the buffers). */
    if (improved || (c == bestCol && !bestTokenized)) {
      Tokens t = best;
      best = doc;
      doc = t;
      Instance *s = bestInst;
      int cs = capBestInst;
      bestInst = inst;
      capBestInst = capInst;
      nBestInst = nInst;
      inst = s;
      capInst = cs;
      bestTokenized = 1;
    }
  }
  if (rc == SQLITE_OK && !matched) {
    sqlite3_result_null(ctx);
  } else if (rc == SQLITE_OK) {
    const char *text = (const char *)sqlite3_value_text(apVal[6 + bestCol]);
    int nText = sqlite3_value_bytes(apVal[6 + bestCol]);
    if (!text) {
      sqlite3_result_null(ctx);
    } else {
      sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
      int to = bestStart + tokens - 1;
      if (bestStart > 0) sqlite3_str_appendall(out, ellipsis);
      int off = write_range(out, q, text, &best, bestInst, nBestInst, bestStart, to, open, close);
      if (to >= best.n - 1) sqlite3_str_append(out, text + off, nText - off);
      else sqlite3_str_appendall(out, ellipsis);
      rc = sqlite3_str_errcode(out);
      char *snippet = sqlite3_str_finish(out);
      if (rc != SQLITE_OK) sqlite3_free(snippet);
      else if (!snippet) sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
      else sqlite3_result_text(ctx, snippet, -1, sqlite3_free);
    }
  }
  if (rc != SQLITE_OK) sqlite3_result_error_code(ctx, rc);
  tokens_free(&doc);
  tokens_free(&best);
  sqlite3_free(inst);
  sqlite3_free(bestInst);
  sqlite3_free(seen);
}

int brain_snippet_register(sqlite3 *db, fts5_api *fts5) {
  return sqlite3_create_function_v2(db, "brain_snippet", -1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                    (void *)fts5, brain_snippet, 0, 0, 0);
}
