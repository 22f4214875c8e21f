/*
 * brain_topk(fts, keys, words, df, sizes, excluded, included, own, k, wide, epoch, budget, reads, w0,
 * ...): the
 * best k rows of a query of n words by brain_bm25, exactly as
 *
 *   SELECT rowid, brain_bm25(fts, df, sizes, w0, ...) AS bm25 FROM fts
 *   WHERE fts MATCH '"t1" OR ... OR "tn"' ORDER BY bm25, rowid LIMIT k
 *
 * ranks them among the rows holding every word, and when fewer than k do, the best `wide` among
 * those holding any (k or wide 0: not ranked), less the rows listed in `excluded` (ascending
 * rowids as native doubles, or NULL) and, when `included` is given (the same form), only among
 * its rows, from each word's posting list: its rows' ids and weighted
 * hits, read once through xQueryPhrase and kept with the connection. `df` gives each word's row
 * count as native doubles, as for brain_bm25; NULL takes its list's length, the same count.
 *
 * With `own` 1 and `included` given, the included rows are ranked as an index of their own: each
 * word's idf from how many of them hold it and their number, the mean length theirs, so the scores
 * are those bm25() gives in an index of those rows alone (test/src/search/people.test.ts builds
 * one). A few conversations inside a big brain are then ranked by what is rare among them, not in
 * the whole brain, where another crowd's words set the weights.
 *
 * Why. A statement scores a row through FTS5's cursor, at ~0.7 µs a row; a question of common
 * words ("any news on the boiler since last week?") holds half a million rows at a million
 * messages, and the pruning of bm25-top-k.ts cannot skip most of them when the rare words hold
 * fewer than k rows. Walking the same lists in memory costs a few nanoseconds a posting, in rowid
 * order; once k rows are ranked, MaxScore skips the rows only common words hold (rank_any).
 *
 * Exactness. A row's score is computed as brain_bm25 computes it: the same idf from `df`, the same
 * mean length from the index's totals, the same length (norms), the same weighted hits, summed
 * phrase by phrase in the same order in the same expression (built with -ffp-contract=off), so the
 * doubles are equal, and ties go to the lower rowid as `ORDER BY bm25, rowid` sends them.
 *
 * What is kept. Per connection and index (sqlite3_set_clientdata), the lists of the words asked
 * for, under `keys` (each word's token, so that "gardens" finds the list of "garden"; `keys` and
 * `words` are the n keys and the n words, each joined by the unit separator, 0x1F), least recently
 * used dropped first once they take more than `budget` bytes (5 bytes a posting: a 32-bit rowid
 * and a one-byte code of its weighted hits). When the words not kept hold more than `reads` rows
 * in all (negative: no limit), nothing is read and the result is NULL: a process that searches
 * once ranks faster with statements than by reading whole lists it will not use again. Lists stay
 * valid while the index's rows at or below the last rowid read are unchanged, which the word
 * counts' epoch (migration 0015, word-counts.ts) tracks: it moves on a delete, an edit, or an
 * insert below the newest row. Lists kept from an older epoch are dropped; those kept from this
 * one read the rows added since, when the index has newer rows than they have seen (one statement
 * for all of a query's words, `rowid > last`, which FTS5 answers by seeking). An epoch below 0
 * keeps nothing. Inside a write transaction nothing is read into memory (the rows may yet be
 * rolled back): the function returns NULL, and the caller ranks with statements.
 *
 * The result: NULL when the caller must rank otherwise (a write transaction, too many rows to
 * read, a rowid past 32 bits, a word with more than 255 different weighted hit counts, lengths
 * that cannot be read), else a blob of native doubles: how many rows hold every word (m), then
 * rowid and bm25 (minus the score) for each of those m, best first, then for each row ranked
 * among those holding any word, best first. Read on the statement's first row only (LIMIT 1;
 * later rows give NULL): the MATCH expression must be the words OR-ed in order, so that phrase i
 * is word i.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "brain_fts.h"

#define BUCKETS 1024
#define MAX_HITS 255
#define MAX_ROWID 0xFFFFFFFFll

typedef struct Postings {
  char *term; /* its key */
  sqlite3_int64 last;    /* the rowid of its last row, 0 when it has none */
  sqlite3_int64 checked; /* the index's newest rowid when its rows were last read, -1 unknown */
  int n, cap;
  unsigned int *rowid; /* ascending */
  unsigned char *code; /* each row's weighted hits, as an index into hits */
  double hits[MAX_HITS];
  int nHits;
  /* The shortest row of each weighted hit count among the first `bounded` rows: what a row of
     the word can score at most (list_bound). */
  unsigned short shortest[MAX_HITS];
  int bounded;
  sqlite3_uint64 used; /* the call that last used it */
  struct Postings *next;
} Postings;

typedef struct Cache {
  sqlite3_int64 epoch;
  sqlite3_uint64 bytes, calls;
  Postings *buckets[BUCKETS];
} Cache;

static sqlite3_uint64 postings_bytes(const Postings *p) {
  return sizeof(Postings) + (sqlite3_uint64)p->cap * 5 + strlen(p->term);
}

static void postings_free(Postings *p) {
  if (!p) return;
  sqlite3_free(p->term);
  sqlite3_free(p->rowid);
  sqlite3_free(p->code);
  sqlite3_free(p);
}

static Postings *postings_new(const char *term) {
  Postings *p = (Postings *)sqlite3_malloc64(sizeof(Postings));
  if (!p) return 0;
  memset(p, 0, sizeof(*p));
  p->term = sqlite3_mprintf("%s", term);
  if (!p->term) {
    sqlite3_free(p);
    return 0;
  }
  return p;
}

/* One more row: SQLITE_RANGE when the list cannot hold it (the caller ranks otherwise). */
static int postings_add(Postings *p, sqlite3_int64 rowid, double f) {
  if (rowid <= p->last || rowid > MAX_ROWID) return SQLITE_RANGE;
  int c = 0;
  while (c < p->nHits && p->hits[c] != f) c++;
  if (c == p->nHits) {
    if (p->nHits == MAX_HITS) return SQLITE_RANGE;
    p->hits[p->nHits++] = f;
  }
  if (p->n == p->cap) {
    int cap = p->cap ? p->cap * 2 : 64;
    unsigned int *rowids =
        (unsigned int *)sqlite3_realloc64(p->rowid, (sqlite3_uint64)cap * sizeof(*rowids));
    if (!rowids) return SQLITE_NOMEM;
    p->rowid = rowids;
    unsigned char *codes = (unsigned char *)sqlite3_realloc64(p->code, (sqlite3_uint64)cap);
    if (!codes) return SQLITE_NOMEM;
    p->code = codes;
    p->cap = cap;
  }
  p->rowid[p->n] = (unsigned int)rowid;
  p->code[p->n] = (unsigned char)c;
  p->n++;
  p->last = rowid;
  return SQLITE_OK;
}

/* Give back what doubling left unused once a list is read whole: room for 1/16 more rows. */
static void postings_fit(Postings *p) {
  int cap = p->n + p->n / 16 + 16;
  if (cap >= p->cap) return;
  unsigned int *rowids =
      (unsigned int *)sqlite3_realloc64(p->rowid, (sqlite3_uint64)cap * sizeof(*rowids));
  if (!rowids) return; /* the list keeps its larger arrays */
  p->rowid = rowids;
  /* The capacity is what both arrays hold at least: the codes' may stay the larger. */
  p->cap = cap;
  unsigned char *codes = (unsigned char *)sqlite3_realloc64(p->code, (sqlite3_uint64)cap);
  if (codes) p->code = codes;
}

typedef struct Reading {
  Postings *postings;
  int nWeight;
  sqlite3_value **weights;
} Reading;

/* xQueryPhrase's callback: one more row holds the word. */
static int read_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
  Reading *r = (Reading *)user;
  double f = 0.0;
  int rc = brain_row_hits(api, fts, 0, r->nWeight, r->weights, &f);
  return rc == SQLITE_OK ? postings_add(r->postings, api->xRowid(fts), f) : rc;
}

static unsigned hash_of(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h % BUCKETS;
}

static void cache_clear(Cache *cache) {
  for (int b = 0; b < BUCKETS; b++) {
    Postings *p = cache->buckets[b];
    while (p) {
      Postings *next = p->next;
      postings_free(p);
      p = next;
    }
    cache->buckets[b] = 0;
  }
  cache->bytes = 0;
}

static void cache_free(void *p) {
  cache_clear((Cache *)p);
  sqlite3_free(p);
}

/* The connection's lists for the index whose docsize table is `sizes`; 0 when out of memory. */
static Cache *cache_of(sqlite3 *db, const char *sizes) {
  char *key = sqlite3_mprintf("brain_topk:%s", sizes);
  if (!key) return 0;
  Cache *cache = (Cache *)sqlite3_get_clientdata(db, key);
  if (!cache) {
    cache = (Cache *)sqlite3_malloc64(sizeof(Cache));
    if (cache) {
      memset(cache, 0, sizeof(*cache));
      cache->epoch = -1;
      /* On failure SQLite has already called cache_free on it. */
      if (sqlite3_set_clientdata(db, key, cache, cache_free) != SQLITE_OK) cache = 0;
    }
  }
  sqlite3_free(key);
  return cache;
}

static Postings *cache_find(Cache *cache, const char *term) {
  for (Postings *p = cache->buckets[hash_of(term)]; p; p = p->next)
    if (strcmp(p->term, term) == 0) return p;
  return 0;
}

static void cache_put(Cache *cache, Postings *p) {
  unsigned b = hash_of(p->term);
  p->next = cache->buckets[b];
  cache->buckets[b] = p;
  cache->bytes += postings_bytes(p);
}

/* Drop the least recently used lists, none used by this call, until the rest fit `budget`. */
static void cache_trim(Cache *cache, sqlite3_uint64 budget) {
  while (cache->bytes > budget) {
    Postings **oldest = 0;
    for (int b = 0; b < BUCKETS; b++)
      for (Postings **at = &cache->buckets[b]; *at; at = &(*at)->next)
        if ((*at)->used != cache->calls && (!oldest || (*at)->used < (*oldest)->used))
          oldest = at;
    if (!oldest) return;
    Postings *p = *oldest;
    *oldest = p->next;
    cache->bytes -= postings_bytes(p);
    postings_free(p);
  }
}

/*
 * The rows added since the kept lists `stale` (m of them, with their words) were last read, in
 * one statement: every row past the oldest of their last rows holding any of the words, with each
 * word's weighted hits (brain_hits_all), each list taking the rows past its own last one.
 */
static int postings_extend(sqlite3 *db, const char *sizes, int nWeight, sqlite3_value **weights,
                           Postings **stale, char **words, int m, Cache *cache) {
  size_t len = strlen(sizes);
  if (len <= 8 || strcmp(sizes + len - 8, "_docsize") != 0) return SQLITE_MISUSE;
  sqlite3_int64 since = stale[0]->last;
  sqlite3_uint64 before = 0;
  for (int j = 0; j < m; j++) {
    if (stale[j]->last < since) since = stale[j]->last;
    before += postings_bytes(stale[j]);
  }
  sqlite3_str *sql = sqlite3_str_new(db);
  sqlite3_str_appendf(sql, "SELECT rowid, brain_hits_all(\"%.*w\"", (int)(len - 8), sizes);
  for (int i = 0; i < nWeight; i++) sqlite3_str_appendf(sql, ", ?%d", i + 3);
  sqlite3_str_appendf(sql, ") FROM \"%.*w\" WHERE \"%.*w\" MATCH ?1 AND rowid > ?2", (int)(len - 8),
                      sizes, (int)(len - 8), sizes);
  char *text = sqlite3_str_finish(sql);
  sqlite3_str *match = sqlite3_str_new(db);
  for (int j = 0; j < m; j++) sqlite3_str_appendf(match, "%s\"%w\"", j ? " OR " : "", words[j]);
  char *matchText = sqlite3_str_finish(match);
  sqlite3_stmt *tail = 0;
  int rc = text && matchText ? sqlite3_prepare_v2(db, text, -1, &tail, 0) : SQLITE_NOMEM;
  sqlite3_free(text);
  for (int i = 0; rc == SQLITE_OK && i < nWeight; i++) rc = sqlite3_bind_value(tail, i + 3, weights[i]);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(tail, 1, matchText, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(tail, 2, since);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(tail)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    sqlite3_int64 rowid = sqlite3_column_int64(tail, 0);
    const unsigned char *hits = (const unsigned char *)sqlite3_column_blob(tail, 1);
    if (sqlite3_column_bytes(tail, 1) != m * (int)sizeof(double)) {
      rc = SQLITE_MISUSE;
      break;
    }
    for (int j = 0; rc == SQLITE_OK && j < m; j++) {
      double f;
      memcpy(&f, hits + (size_t)j * sizeof(double), sizeof(double));
      if (f > 0.0 && rowid > stale[j]->last) rc = postings_add(stale[j], rowid, f);
    }
  }
  sqlite3_finalize(tail);
  sqlite3_free(matchText);
  sqlite3_uint64 after = 0;
  for (int j = 0; j < m; j++) after += postings_bytes(stale[j]);
  cache->bytes += after - before;
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* brain_hits_all(fts, w0, w1, ...): the weighted hits of every phrase of the MATCH expression in
   the row, as native doubles (brain_hits gives the first phrase's). */
void brain_hits_all(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                    sqlite3_value **apVal) {
  int n = api->xPhraseCount(fts);
  double *hits = (double *)sqlite3_malloc64((sqlite3_uint64)(n + 1) * sizeof(double));
  if (!hits) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int rc = brain_phrase_hits(api, fts, n, nVal, apVal, hits);
  if (rc != SQLITE_OK) {
    sqlite3_free(hits);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_blob64(ctx, hits, (sqlite3_uint64)n * sizeof(double), sqlite3_free);
}

/* A row ranked: the heap's worst first (lowest score; of equal scores, the highest rowid). */
typedef struct Hit {
  double score;
  sqlite3_int64 rowid;
} Hit;

static int worse(const Hit *a, const Hit *b) {
  return a->score < b->score || (a->score == b->score && a->rowid > b->rowid);
}

static void sift_down(Hit *heap, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, w = i;
    if (l < n && worse(&heap[l], &heap[w])) w = l;
    if (r < n && worse(&heap[r], &heap[w])) w = r;
    if (w == i) return;
    Hit t = heap[i];
    heap[i] = heap[w];
    heap[w] = t;
    i = w;
  }
}

static void sift_up(Hit *heap, int i) {
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!worse(&heap[i], &heap[parent])) return;
    Hit t = heap[i];
    heap[i] = heap[parent];
    heap[parent] = t;
    i = parent;
  }
}

static int best_first(const void *a, const void *b) {
  const Hit *x = (const Hit *)a, *y = (const Hit *)b;
  return worse(y, x) ? -1 : worse(x, y) ? 1 : 0;
}

/* The best `k` so far, the worst at the root. */
typedef struct Heap {
  Hit *hits;
  int k, size;
} Heap;

typedef struct Ranking {
  Postings **lists;
  double *idf;
  int n;
  sqlite3_int64 nRow;
  double avgdl;
  Lengths lengths;
  const char *sizes;
  const unsigned char *excluded;
  int nExcluded;
  const unsigned char *included; /* the rows to rank among, or 0: all */
  int nIncluded;
  int own; /* the included rows are ranked as an index of their own (their counts, their mean) */
  Heap every; /* rows holding every word */
  Heap any;   /* rows holding any */
} Ranking;

/* What BM25 divides by for a row of this length (brain_fts.h's expression). */
static double norm_of(const Ranking *rk, int length) { return brain_norm(rk->avgdl, length); }

/* Put a scored row among the best k, unless it is worse than all of them or left out. */
static void offer(Ranking *rk, Heap *heap, double score, sqlite3_int64 rowid) {
  Hit hit = {score, rowid};
  if (heap->size == heap->k && !worse(&heap->hits[0], &hit)) return;
  if (rk->nExcluded > 0 && brain_among(rk->excluded, rk->nExcluded, rowid)) return;
  if (heap->size < heap->k) {
    heap->hits[heap->size] = hit;
    sift_up(heap->hits, heap->size++);
  } else {
    heap->hits[0] = hit;
    sift_down(heap->hits, heap->size, 0);
  }
}

/* The score of a row held by the lists whose cursor `at` is on it. */
static int score_at(Ranking *rk, const int *at, sqlite3_int64 rowid, double *score) {
  int length = 0;
  int rc = brain_length_at(&rk->lengths, rk->sizes, rowid, &length);
  if (rc != SQLITE_OK) return rc;
  double norm = norm_of(rk, length);
  double sum = 0.0;
  for (int i = 0; i < rk->n; i++) {
    const Postings *p = rk->lists[i];
    if (at[i] >= p->n || p->rowid[at[i]] != rowid) continue;
    sum += brain_term(rk->idf[i], p->hits[p->code[at[i]]], norm);
  }
  *score = sum;
  return SQLITE_OK;
}

/* Rows are scored a window of rowids at a time: word by word into one array, then offered. */
#define WINDOW 4096
/* Lengths up to this are divided once per call (norm_of), not once per posting. */
#define NORMS_TABLE 256

/* The first place at or after `from` whose rowid is at least `rowid` (galloping, then halving). */
static int seek(const Postings *p, int from, sqlite3_int64 rowid) {
  int step = 1, lo = from, hi = from;
  while (hi < p->n && p->rowid[hi] < rowid) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > p->n) hi = p->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->rowid[mid] < rowid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The most the word adds to any row's score: at each weighted hit count, the shortest row that
   has it. 0 when a length is not in memory (the bound is then unknown). */
static double list_bound(Ranking *rk, int i) {
  Postings *p = rk->lists[i];
  const Norms *norms = rk->lengths.norms;
  if (!norms || !norms->loaded) return 0.0;
  if (p->bounded == 0) memset(p->shortest, 0xFF, sizeof(p->shortest));
  for (; p->bounded < p->n; p->bounded++) {
    unsigned int rowid = p->rowid[p->bounded];
    if (rowid > norms->loadedMax || rowid >= norms->cap || norms->len[rowid] == NORM_UNKNOWN) {
      p->bounded = 0; /* read it all again next time */
      return 0.0;
    }
    unsigned char c = p->code[p->bounded];
    if (norms->len[rowid] < p->shortest[c]) p->shortest[c] = norms->len[rowid];
  }
  double best = 0.0;
  for (int c = 0; c < p->nHits; c++) {
    if (p->shortest[c] == NORM_UNKNOWN) continue;
    double f = p->hits[c];
    double most = brain_term(rk->idf[i], f, norm_of(rk, p->shortest[c]));
    if (most > best) best = most;
  }
  return best;
}

/* What word i adds to the row at place j of its list, of this length: brain_bm25's expression,
   from the table of (hit count, length) pairs when the length is in it. */
static double term_of(const Ranking *rk, const double *const *table, int i, const Postings *p,
                      int j, int length) {
  if (length < NORMS_TABLE) return table[i][p->code[j] * NORMS_TABLE + length];
  double f = p->hits[p->code[j]];
  return brain_term(rk->idf[i], f, norm_of(rk, length));
}

/* Rounding: a row is dropped only when its bound is below the k-th score by more than float
   error can account for (as in bm25-top-k.ts). */
static int surely_below(double bound, double theta) { return bound * (1 + 1e-9) + 1e-9 < theta; }

/*
 * Every row holding any word that can reach the best k, window by window of rowids, MaxScore
 * (Turtle & Flood 1995) on the lists in memory. Once k rows are ranked, the k-th score θ is a
 * floor: the words whose bounds, cheapest first, add up to less than θ (the optional words) can
 * lift no row into the best k by themselves, so only the rows holding another word (an
 * essential one) are candidates. Their partial sums (the essential words' terms) plus the
 * optional words' bounds bound their scores; those that may reach θ are scored again, every
 * word's list walked in phrase order, only their rows' terms added (the optional words' other
 * rows cost a look at a flag, not a length and a term). Before θ is known, or when no word is
 * optional, every row is scored word after word (term at a time), in phrase order too, so each
 * sum adds its words as brain_bm25 does. A row's first word finds its slot at 0.0 (every word
 * adds more than 0: idf >= 1e-6, hits > 0).
 */
static int rank_any(Ranking *rk, int *at) {
  int n = rk->n, nTerms = 0;
  for (int i = 0; i < n; i++) nTerms += rk->lists[i]->nHits * NORMS_TABLE;
  double *sum = (double *)sqlite3_malloc64(WINDOW * sizeof(double));
  /* One more than the window: each posting writes its slot past the last new one. */
  int *touched = (int *)sqlite3_malloc64((WINDOW + 1) * sizeof(int));
  /* What each word adds to a row, by its weighted hits (code) and length: the same expression as
     brain_bm25's, evaluated once per pair rather than once per posting. */
  double *terms = (double *)sqlite3_malloc64((sqlite3_uint64)(nTerms + 1) * sizeof(double));
  double *bound = (double *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(double));
  int *order = (int *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(int)); /* by bound, lowest first */
  int *end = (int *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(int));
  const double **table = (const double **)sqlite3_malloc64((sqlite3_uint64)n * sizeof(double *));
  unsigned char *candidate = (unsigned char *)sqlite3_malloc64(WINDOW);
  int rc = sum && touched && terms && bound && order && end && table && candidate
               ? SQLITE_OK
               : SQLITE_NOMEM;
  int bounded = 1;
  if (rc == SQLITE_OK) {
    memset(sum, 0, WINDOW * sizeof(double));
    memset(candidate, 0, WINDOW);
    double *t = terms;
    for (int i = 0; i < n; i++) {
      table[i] = t;
      for (int c = 0; c < rk->lists[i]->nHits; c++) {
        double f = rk->lists[i]->hits[c];
        for (int d = 0; d < NORMS_TABLE; d++)
          *t++ = brain_term(rk->idf[i], f, norm_of(rk, d));
      }
      bound[i] = list_bound(rk, i);
      if (bound[i] <= 0.0) bounded = 0;
      order[i] = i;
    }
    for (int i = 1; i < n; i++) /* insertion sort: a few words */
      for (int j = i; j > 0 && bound[order[j]] < bound[order[j - 1]]; j--) {
        int x = order[j];
        order[j] = order[j - 1];
        order[j - 1] = x;
      }
  }
  const Norms *norms = rk->lengths.norms;
  const unsigned short *len = norms && norms->loaded ? norms->len : 0;
  sqlite3_int64 inMemory = len ? (norms->loadedMax < norms->cap ? norms->loadedMax : norms->cap - 1)
                               : -1;
  while (rc == SQLITE_OK) {
    sqlite3_int64 first = -1;
    for (int i = 0; i < n; i++)
      if (at[i] < rk->lists[i]->n && (first < 0 || rk->lists[i]->rowid[at[i]] < first))
        first = rk->lists[i]->rowid[at[i]];
    if (first < 0) break;
    sqlite3_int64 base = first - first % WINDOW, stop = base + WINDOW;
    for (int i = 0; i < n; i++) end[i] = seek(rk->lists[i], at[i], stop);
    /* The optional words: those, cheapest first, whose bounds add up to less than θ. */
    int optional = 0;
    double rest = 0.0;
    if (bounded && rk->any.size == rk->any.k) {
      double theta = rk->any.hits[0].score;
      while (optional < n - 1 && surely_below(rest + bound[order[optional]], theta))
        rest += bound[order[optional++]];
      /* Worth a second pass only when the optional words hold most of the window's postings. */
      sqlite3_int64 all = 0, skipped = 0;
      for (int o = 0; o < n; o++) {
        all += end[order[o]] - at[order[o]];
        if (o < optional) skipped += end[order[o]] - at[order[o]];
      }
      if (4 * skipped < 3 * all) optional = 0;
    }
    int nTouched = 0;
    for (int o = optional; rc == SQLITE_OK && o < n; o++) {
      /* Every word in phrase order when none is optional; else the essential ones, any order. */
      int i = optional == 0 ? o : order[o];
      const Postings *p = rk->lists[i];
      for (int j = at[i]; j < end[i]; j++) {
        sqlite3_int64 rowid = p->rowid[j];
        int length = rowid <= inMemory ? len[rowid] : NORM_UNKNOWN;
        if (length == NORM_UNKNOWN) {
          rc = brain_length_at(&rk->lengths, rk->sizes, rowid, &length);
          if (rc != SQLITE_OK) break;
        }
        int slot = (int)(rowid - base);
        /* Without a branch: whether a row is new is as good as random. */
        touched[nTouched] = slot;
        nTouched += sum[slot] == 0.0;
        sum[slot] += term_of(rk, table, i, p, j, length);
      }
    }
    if (optional > 0 && rc == SQLITE_OK) {
      /* Partial sums, in another order: the rows that may reach θ (θ only rises) are scored
         again, every word in phrase order, walking each list's window once. */
      int nCandidates = 0;
      double theta = rk->any.hits[0].score;
      for (int t = 0; t < nTouched; t++) {
        int slot = touched[t];
        if (!surely_below(sum[slot] + rest, theta)) {
          candidate[slot] = 1;
          touched[nCandidates++] = slot;
        }
        sum[slot] = 0.0;
      }
      nTouched = nCandidates;
      for (int i = 0; nCandidates > 0 && rc == SQLITE_OK && i < n; i++) {
        const Postings *p = rk->lists[i];
        for (int j = at[i]; j < end[i]; j++) {
          int slot = (int)(p->rowid[j] - base);
          if (!candidate[slot]) continue;
          int length = 0;
          rc = brain_length_at(&rk->lengths, rk->sizes, p->rowid[j], &length);
          if (rc != SQLITE_OK) break;
          sum[slot] += term_of(rk, table, i, p, j, length);
        }
      }
      for (int t = 0; t < nTouched; t++) candidate[touched[t]] = 0;
    }
    for (int t = 0; t < nTouched; t++) {
      offer(rk, &rk->any, sum[touched[t]], base + touched[t]);
      sum[touched[t]] = 0.0;
    }
    for (int i = 0; i < n; i++) at[i] = end[i];
  }
  sqlite3_free(sum);
  sqlite3_free(touched);
  sqlite3_free(terms);
  sqlite3_free(bound);
  sqlite3_free(order);
  sqlite3_free(end);
  sqlite3_free(table);
  sqlite3_free(candidate);
  return rc;
}

/* Every row holding all the words: the shortest list leads, the others seek. */
static int rank_all(Ranking *rk, int *at) {
  int lead = 0;
  for (int i = 1; i < rk->n; i++)
    if (rk->lists[i]->n < rk->lists[lead]->n) lead = i;
  const Postings *l = rk->lists[lead];
  for (; at[lead] < l->n; at[lead]++) {
    sqlite3_int64 rowid = l->rowid[at[lead]];
    int all = 1;
    for (int i = 0; all && i < rk->n; i++) {
      if (i == lead) continue;
      at[i] = seek(rk->lists[i], at[i], rowid);
      if (at[i] >= rk->lists[i]->n) return SQLITE_OK;
      all = rk->lists[i]->rowid[at[i]] == rowid;
    }
    if (all) {
      double score = 0.0;
      int rc = score_at(rk, at, rowid, &score);
      if (rc != SQLITE_OK) return rc;
      offer(rk, &rk->every, score, rowid);
    }
  }
  return SQLITE_OK;
}

/*
 * Among the rows of `included` only: each row sought in every word's list (galloping from where
 * the last row left each cursor, rows ascending), scored by score_at when it holds a word, offered
 * to the rows holding every word and to those holding any. A short allow-list costs its length
 * times the words, not the words' lists. As rank_all and rank_any give them: the rows holding any
 * only when fewer than k hold every word.
 */
static int rank_among(Ranking *rk, int *at) {
  /* Their own counts and mean length first, in one walk of the lists, with the same expressions
     as FTS5's (xRowCount, xColumnTotalSize) over an index of these rows. */
  if (rk->own) {
    sqlite3_int64 total = 0;
    double *df = sqlite3_malloc64((sqlite3_uint64)rk->n * sizeof(double));
    if (!df) return SQLITE_NOMEM;
    for (int i = 0; i < rk->n; i++) df[i] = 0.0;
    for (int r = 0; r < rk->nIncluded; r++) {
      double d;
      memcpy(&d, rk->included + (size_t)r * sizeof(double), sizeof(double));
      sqlite3_int64 rowid = (sqlite3_int64)d;
      int length = 0;
      int rc = brain_length_at(&rk->lengths, rk->sizes, rowid, &length);
      if (rc != SQLITE_OK) {
        sqlite3_free(df);
        return rc;
      }
      total += length;
      for (int i = 0; i < rk->n; i++) {
        const Postings *p = rk->lists[i];
        at[i] = seek(p, at[i], rowid);
        if (at[i] < p->n && p->rowid[at[i]] == rowid) df[i] += 1.0;
      }
    }
    double nRow = (double)rk->nIncluded;
    if (nRow > 0) {
      rk->avgdl = (double)total / nRow;
      if (rk->avgdl <= 0.0) rk->avgdl = 1.0;
      for (int i = 0; i < rk->n; i++) {
        double idf = log((nRow - df[i] + 0.5) / (df[i] + 0.5));
        rk->idf[i] = idf > 0.0 ? idf : 1e-6;
      }
    }
    sqlite3_free(df);
    memset(at, 0, (size_t)rk->n * sizeof(int));
  }
  for (int r = 0; r < rk->nIncluded; r++) {
    double d;
    memcpy(&d, rk->included + (size_t)r * sizeof(double), sizeof(double));
    sqlite3_int64 rowid = (sqlite3_int64)d;
    int held = 0;
    for (int i = 0; i < rk->n; i++) {
      const Postings *p = rk->lists[i];
      at[i] = seek(p, at[i], rowid);
      if (at[i] < p->n && p->rowid[at[i]] == rowid) held++;
    }
    if (held == 0) continue;
    double score = 0.0;
    int rc = score_at(rk, at, rowid, &score);
    if (rc != SQLITE_OK) return rc;
    if (held == rk->n && rk->every.k > 0) offer(rk, &rk->every, score, rowid);
    if (rk->any.k > 0) offer(rk, &rk->any, score, rowid);
  }
  if (rk->every.k > 0 && rk->every.size >= rk->every.k) rk->any.size = 0;
  return SQLITE_OK;
}

static void free_terms(char **terms, int n) {
  if (!terms) return;
  for (int i = 0; i < n; i++) sqlite3_free(terms[i]);
  sqlite3_free(terms);
}

/* Split `terms` on the unit separator: n words, or 0 when they are not n (or out of memory). */
static char **split_terms(const char *terms, int n) {
  char **out = (char **)sqlite3_malloc64((sqlite3_uint64)n * sizeof(char *));
  if (!out) return 0;
  memset(out, 0, (size_t)n * sizeof(char *));
  const char *at = terms;
  for (int i = 0; i < n; i++) {
    const char *end = strchr(at, '\x1f');
    if ((end == 0) != (i == n - 1)) break;
    size_t len = end ? (size_t)(end - at) : strlen(at);
    out[i] = sqlite3_mprintf("%.*s", (int)len, at);
    if (!out[i]) break;
    at = end ? end + 1 : at + len;
  }
  if (!out[n - 1]) {
    free_terms(out, n);
    return 0;
  }
  return out;
}

/* The best of a heap, best first, as rowid and bm25 (minus the score) pairs from `out`. */
static double *write_hits(double *out, Heap *heap) {
  qsort(heap->hits, (size_t)heap->size, sizeof(Hit), best_first);
  for (int i = 0; i < heap->size; i++) {
    *out++ = (double)heap->hits[i].rowid;
    *out++ = -heap->hits[i].score;
  }
  return out;
}

void brain_topk(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                sqlite3_value **apVal) {
  if (nVal < 12) {
    sqlite3_result_error(ctx,
                         "brain_topk: expects (fts, keys, words, df, sizes, excluded, included, own, "
                         "k, wide, epoch, budget, reads, weights...)",
                         -1);
    return;
  }
  if (api->xGetAuxdata(fts, 0)) {
    sqlite3_result_null(ctx); /* ranked once per statement, on its first row */
    return;
  }
  int rc = api->xSetAuxdata(fts, (void *)1, 0);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3 *db = (sqlite3 *)api->xUserData(fts);
  int n = api->xPhraseCount(fts);
  const char *keyText = (const char *)sqlite3_value_text(apVal[0]);
  const char *wordText = (const char *)sqlite3_value_text(apVal[1]);
  sqlite3_value *dfValue = apVal[2];
  const char *sizes = (const char *)sqlite3_value_text(apVal[3]);
  sqlite3_value *excludedValue = apVal[4];
  sqlite3_value *includedValue = apVal[5];
  int ownStats = sqlite3_value_int(apVal[6]);
  int k = sqlite3_value_int(apVal[7]);
  int wide = sqlite3_value_int(apVal[8]);
  sqlite3_int64 epoch = sqlite3_value_int64(apVal[9]);
  sqlite3_int64 budget = sqlite3_value_int64(apVal[10]);
  sqlite3_int64 reads = sqlite3_value_int64(apVal[11]);
  int nWeight = nVal - 12;
  sqlite3_value **weights = &apVal[12];
  /* Without counts, each word's is its list's length, once read. */
  int counted = sqlite3_value_type(dfValue) != SQLITE_NULL;
  if (n < 1 || !keyText || !wordText || !sizes ||
      (counted && (sqlite3_value_type(dfValue) != SQLITE_BLOB ||
                   sqlite3_value_bytes(dfValue) != n * (int)sizeof(double))) ||
      k < 0 || wide < 0 || k + wide < 1) {
    sqlite3_result_error(
        ctx, "brain_topk: one key, word and count per phrase, k and wide not both 0", -1);
    return;
  }
  if (brain_writing(db)) {
    sqlite3_result_null(ctx);
    return;
  }
  char **keys = split_terms(keyText, n);
  char **words = split_terms(wordText, n);
  if (!keys || !words) {
    free_terms(keys, n);
    free_terms(words, n);
    sqlite3_result_error(ctx, "brain_topk: `keys` and `words` must name one word per phrase", -1);
    return;
  }
  Cache *cache = epoch >= 0 ? cache_of(db, sizes) : 0;
  Ranking rk;
  memset(&rk, 0, sizeof(rk));
  rk.n = n;
  rk.sizes = sizes;
  rk.every.k = k;
  rk.any.k = wide;
  rk.lists = (Postings **)sqlite3_malloc64((sqlite3_uint64)n * sizeof(Postings *));
  rk.idf = (double *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(double));
  int *at = (int *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(int));
  int *own = (int *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(int)); /* freed after: not kept */
  rk.every.hits = (Hit *)sqlite3_malloc64((sqlite3_uint64)(k + 1) * sizeof(Hit));
  rk.any.hits = (Hit *)sqlite3_malloc64((sqlite3_uint64)(wide + 1) * sizeof(Hit));
  Postings **stale = (Postings **)sqlite3_malloc64((sqlite3_uint64)n * sizeof(Postings *));
  char **staleWords = (char **)sqlite3_malloc64((sqlite3_uint64)n * sizeof(char *));
  rc = stale && staleWords && rk.lists && rk.idf && at && own && rk.every.hits && rk.any.hits && (epoch < 0 || cache)
           ? SQLITE_OK
           : SQLITE_NOMEM;
  /* The index's newest row: a kept list checked up to it has no rows to add. */
  sqlite3_int64 newest = -1;
  if (rc == SQLITE_OK) {
    memset(rk.lists, 0, (size_t)n * sizeof(Postings *));
    memset(own, 0, (size_t)n * sizeof(int));
    if (cache && cache->epoch != epoch) {
      cache_clear(cache);
      cache->epoch = epoch;
    }
    if (cache) cache->calls++;
    sqlite3_int64 nRow = 0, nToken = 0;
    rc = api->xRowCount(fts, &nRow);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
    rk.avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
    if (rk.avgdl <= 0.0) rk.avgdl = 1.0;
    rk.nRow = nRow;
    const unsigned char *df = counted ? (const unsigned char *)sqlite3_value_blob(dfValue) : 0;
    double toRead = 0.0; /* the rows of the words not kept (unknown without counts) */
    double rows = 0.0;   /* the rows that may be scored, as far as known */
    for (int i = 0; i < n; i++) {
      Postings *kept = rk.lists[i] = cache ? cache_find(cache, keys[i]) : 0;
      double hits = kept ? (double)kept->n : 0.0;
      if (df) memcpy(&hits, df + (size_t)i * sizeof(double), sizeof(double));
      else if (!kept) toRead = INFINITY;
      if (!kept) toRead += hits;
      rows += hits;
    }
    if (reads >= 0 && toRead > (double)reads) rc = SQLITE_RANGE;
    rk.lengths.db = db;
    rk.lengths.norms = brain_norms_for(db, apVal[3], nRow, rows);
    if (rk.lengths.norms && rk.lengths.norms->loaded) newest = rk.lengths.norms->loadedMax;
  }
  /* The kept lists the index has rows newer than: brought up to date in one statement. */
  int nStale = 0;
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    Postings *p = rk.lists[i];
    if (p && (newest < 0 || p->checked < newest)) {
      stale[nStale] = p;
      staleWords[nStale++] = words[i];
    }
  }
  if (rc == SQLITE_OK && nStale > 0)
    rc = postings_extend(db, sizes, nWeight, weights, stale, staleWords, nStale, cache);
  /* The lists not kept, read whole (and kept when the budget allows). */
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    /* Two words of one token ("garden", "gardens") share the list the first read. */
    Postings *p = rk.lists[i] ? rk.lists[i] : cache ? cache_find(cache, keys[i]) : 0;
    if (!p) {
      p = postings_new(keys[i]);
      if (!p) {
        rc = SQLITE_NOMEM;
        break;
      }
      Reading reading = {p, nWeight, weights};
      rc = api->xQueryPhrase(fts, i, &reading, read_row);
      if (rc == SQLITE_OK) postings_fit(p);
      if (rc == SQLITE_OK && cache && budget > 0 && postings_bytes(p) <= (sqlite3_uint64)budget)
        cache_put(cache, p);
      else own[i] = 1;
    }
    if (rc == SQLITE_OK) p->checked = newest;
    p->used = cache ? cache->calls : 0;
    rk.lists[i] = p;
  }
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    double hits = (double)rk.lists[i]->n;
    if (counted) {
      const unsigned char *df = (const unsigned char *)sqlite3_value_blob(dfValue);
      memcpy(&hits, df + (size_t)i * sizeof(double), sizeof(double));
    }
    double idf = log(((double)rk.nRow - hits + 0.5) / (hits + 0.5));
    rk.idf[i] = idf > 0.0 ? idf : 1e-6;
  }
  if (rc == SQLITE_OK) {
    rk.excluded = sqlite3_value_type(excludedValue) == SQLITE_BLOB
                      ? (const unsigned char *)sqlite3_value_blob(excludedValue)
                      : 0;
    rk.nExcluded = rk.excluded ? sqlite3_value_bytes(excludedValue) / (int)sizeof(double) : 0;
    rk.included = sqlite3_value_type(includedValue) == SQLITE_BLOB
                      ? (const unsigned char *)sqlite3_value_blob(includedValue)
                      : 0;
    rk.nIncluded = rk.included ? sqlite3_value_bytes(includedValue) / (int)sizeof(double) : 0;
    rk.own = ownStats && rk.included;
    memset(at, 0, (size_t)n * sizeof(int));
    if (sqlite3_value_type(includedValue) == SQLITE_BLOB) {
      rc = rank_among(&rk, at);
    } else {
      /* Rows holding every word first; those holding any only when the first are fewer than k. */
      if (k > 0) rc = rank_all(&rk, at);
      if (rc == SQLITE_OK && wide > 0 && (k == 0 || rk.every.size < k)) {
        memset(at, 0, (size_t)n * sizeof(int));
        rc = rank_any(&rk, at);
      }
    }
  }
  if (rk.lengths.sizes) sqlite3_blob_close(rk.lengths.sizes);
  if (cache && budget >= 0) cache_trim(cache, (sqlite3_uint64)budget);
  if (rc == SQLITE_OK) {
    /* Native doubles: how many rows hold every word, those rows, then the rows holding any. */
    sqlite3_uint64 nOut = 1 + 2 * (sqlite3_uint64)(rk.every.size + rk.any.size);
    double *out = (double *)sqlite3_malloc64(nOut * sizeof(double));
    if (!out) {
      sqlite3_result_error_nomem(ctx);
    } else {
      out[0] = (double)rk.every.size;
      write_hits(write_hits(out + 1, &rk.every), &rk.any);
      sqlite3_result_blob64(ctx, out, nOut * sizeof(double), sqlite3_free);
    }
  } else if (rc == SQLITE_RANGE || rc == SQLITE_NOTFOUND) {
    sqlite3_result_null(ctx); /* a list or a length this cannot hold: the caller ranks otherwise */
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
  for (int i = 0; i < n; i++)
    if (own && own[i] && rk.lists) postings_free(rk.lists[i]);
  free_terms(keys, n);
  free_terms(words, n);
  sqlite3_free(rk.lists);
  sqlite3_free(rk.idf);
  sqlite3_free(at);
  sqlite3_free(own);
  sqlite3_free(stale);
  sqlite3_free(staleWords);
  sqlite3_free(rk.every.hits);
  sqlite3_free(rk.any.hits);
}
