/*
 * brain_fts: an SQLite extension adding one FTS5 ranking function, brain_bm25.
 *
 * brain_bm25(fts, df, sizes, w0, w1, ...) scores a row as FTS5's own bm25(fts, w0, w1, ...)
 * does, at less cost:
 *
 * - `df` gives the number of rows holding each phrase of the query (its document frequency): a
 *   blob of one native double per phrase, in the order the phrases appear in the MATCH
 *   expression. bm25() counts those rows itself, reading every entry of every phrase's doclist,
 *   in every statement that ranks; for a word held by a quarter of a million messages that count
 *   costs more than the ranking. The caller counts once per word and keeps the count
 *   (src/search/bm25-top-k.ts). A blob of m doubles, fewer than the phrases, scores the first m
 *   phrases only; the others only choose which rows are scored, so `(a OR b OR c) AND (a)`
 *   scores the rows holding `a` by all three words (the pruned exact top k). When `df` is NULL,
 *   empty, or more than one double per phrase, the rows are counted as bm25() counts them.
 * - `sizes` names the index's docsize table ('<fts>_docsize'), where FTS5 keeps each row's length
 *   in tokens per column as a record of varints. The row's length is read through one blob
 *   handle moved from row to row, where FTS5's xColumnSize runs a statement per row. When
 *   `sizes` is NULL, or the table cannot be read, xColumnSize gives the length.
 *
 * Row lengths in memory. Once a connection has looked up a 16th of an index's row count of its
 * lengths (at least 2,000), or is about to (the given row counts of a statement's words say how
 * many rows it may score), it reads the whole docsize table into an array of one uint16 per rowid
 * (2 MB for a million rows, ~50 ms at that size, about what 60,000 lookups through the blob handle
 * cost), as Lucene keeps its norms, and from then on looks a length up there; each statement
 * first reads the rows added since. A one-off search of rarer words never pays for the load; a
 * server pays once per index. brain itself never changes the text of an indexed row (a rebuilt index holds the same
 * tokens), so its lengths do not go stale; a row whose text another tool changes keeps its old
 * length on a connection that had loaded it, until that one is reopened. A rowid can come back,
 * though: messages have no AUTOINCREMENT, so a row written in a transaction that is rolled back
 * leaves its rowid to the next one. So lengths are only read into memory while the connection
 * holds no write transaction, when every row it sees is committed; inside one, the rows past those
 * in memory are looked up through the blob handle, which sees the transaction's own rows.
 * brain_fts_norms(sizes) loads them at once and returns the last rowid it holds; with a second
 * argument 0 it only says so, -1 when not loaded (for tests).
 *
 * Saved lengths. Reading a million rows of the docsize table takes a new process about 100 ms, so
 * the lengths are also kept in the database (table search_norms, one row per index: the rowids up
 * to `upto` as little-endian uint16, in the index's epoch). A connection reads them there first,
 * in the snapshot it reads the rest in, and then only the docsize rows added since; being cheap to
 * read, saved lengths are read for any statement that would look up NORMS_MIN rows. A row is valid
 * only in the epoch it names: whatever may change a row's length (a delete, an edit, a file added
 * to an older message) moves the index's epoch. brain_fts_norms_export(sizes) hands a connection's
 * lengths to the caller to save (src/search/norms.ts): a blob of the epoch they were first read in
 * and their last rowid (int64 little-endian each), then the lengths; NULL when they are not loaded,
 * their epoch is unknown, or what is saved already holds all but a few of them.
 *
 * With exact counts the scores equal bm25()'s (test/src/search/rank-function.test.ts):
 *   idf(p)   = ln((N - df(p) + 0.5) / (df(p) + 0.5)), or 1e-6 when that is not positive
 *   score    = -sum over phrases p of idf(p) * f(p) * (k1 + 1) / (f(p) + k1 * (1 - b + b * D / avgdl))
 * where f(p) is the phrase's hits in the row, each weighted by its column's weight, D the row's
 * length in tokens, avgdl the mean length, N the rows of the index, k1 = 1.2 and b = 0.75.
 * Lower is better, as with bm25().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include "brain_fts.h"

/* Lengths are loaded into memory once the lookups through the blob handle reach a 16th of the
   index's rows (loading costs about what that many lookups do), and never for fewer than this. */
#define NORMS_SHARE 16
#define NORMS_MIN 2000
/* Rowids from here up are looked up through the blob handle: the array stays under 64 MB. */
#define NORMS_MAX_ROWID (1 << 25)

/* The indexes of brain's schema: docsize table → its name in search_count_epochs. The lengths of
   other FTS5 tables (tests make some) are never saved. */
static const char *const INDEXES[][2] = {
    {"messages_fts_docsize", "message"},
    {"stm_fts_docsize", "stm"},
    {"atoms_fts_docsize", "atom"},
};

static const char *index_of(const char *table) {
  for (size_t i = 0; i < sizeof(INDEXES) / sizeof(INDEXES[0]); i++)
    if (strcmp(INDEXES[i][0], table) == 0) return INDEXES[i][1];
  return 0;
}

static void norms_free(void *p) {
  Norms *norms = (Norms *)p;
  sqlite3_free(norms->table);
  sqlite3_free(norms->len);
  sqlite3_free(norms);
}

/* The norms of the docsize table `table` on this connection, made empty when first asked for. */
static Norms *norms_of(sqlite3 *db, const char *table) {
  char *key = sqlite3_mprintf("brain_fts_norms:%s", table);
  if (!key) return 0;
  Norms *norms = (Norms *)sqlite3_get_clientdata(db, key);
  if (!norms) {
    norms = (Norms *)sqlite3_malloc64(sizeof(Norms));
    if (norms) {
      memset(norms, 0, sizeof(Norms));
      norms->epoch = -1;
      norms->savedUpto = -1;
      norms->saved = -1;
      norms->table = sqlite3_mprintf("%s", table);
      norms->index = index_of(table);
      if (!norms->table) {
        sqlite3_free(norms);
        norms = 0;
      } else if (sqlite3_set_clientdata(db, key, norms, norms_free) != SQLITE_OK) {
        norms = 0; /* out of memory: SQLite has already called norms_free on it */
      }
    }
  }
  sqlite3_free(key);
  return norms;
}

/* The sum of the varints of a docsize record: the row's length in tokens, all columns. */
static sqlite3_int64 record_length(const unsigned char *record, int n) {
  sqlite3_int64 total = 0, value = 0;
  for (int i = 0; i < n; i++) {
    value = (value << 7) | (record[i] & 0x7f);
    if (!(record[i] & 0x80)) {
      total += value;
      value = 0;
    }
  }
  return total;
}

/* Whether the connection has a write transaction open: the rows it sees may yet be rolled back. */
int brain_writing(sqlite3 *db) { return sqlite3_txn_state(db, 0) == SQLITE_TXN_WRITE; }

/* Room in `len` for rowids up to `rowid`; 0 when memory runs out (the norms are then failed). */
static int norms_reserve(Norms *norms, sqlite3_int64 rowid) {
  if (rowid < norms->cap) return 1;
  sqlite3_int64 cap = norms->cap ? norms->cap : 1024;
  while (cap <= rowid) cap *= 2;
  unsigned short *len =
      (unsigned short *)sqlite3_realloc64(norms->len, (sqlite3_uint64)cap * sizeof(*len));
  if (!len) {
    norms->failed = 1;
    return 0;
  }
  for (sqlite3_int64 i = norms->cap; i < cap; i++) len[i] = NORM_UNKNOWN;
  norms->len = len;
  norms->cap = cap;
  return 1;
}

/* The index's epoch, and the saved lengths when they are valid in it (read into `len` when
   `read`): SQLITE_OK with norms->saved set, or an error when the tables are not there (a brain
   from before them, or an FTS5 table of a test), which leaves the lengths unsaved. */
static int norms_saved(sqlite3 *db, Norms *norms, int read) {
  if (!norms->index) return SQLITE_NOTFOUND;
  sqlite3_stmt *stmt = 0;
  int rc = sqlite3_prepare_v2(
      db,
      read ? "SELECT e.epoch, n.upto, n.lengths FROM search_count_epochs e "
             "LEFT JOIN search_norms n ON n.tbl = ?1 AND n.epoch = e.epoch WHERE e.idx = ?2"
           : "SELECT e.epoch, n.upto, NULL FROM search_count_epochs e "
             "LEFT JOIN search_norms n ON n.tbl = ?1 AND n.epoch = e.epoch WHERE e.idx = ?2",
      -1, &stmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(stmt, 1, norms->table, -1, SQLITE_STATIC);
  sqlite3_bind_text(stmt, 2, norms->index, -1, SQLITE_STATIC);
  rc = sqlite3_step(stmt);
  norms->saved = 0;
  if (rc == SQLITE_ROW) {
    rc = SQLITE_OK;
    sqlite3_int64 epoch = sqlite3_column_int64(stmt, 0);
    if (sqlite3_column_type(stmt, 1) == SQLITE_INTEGER) {
      sqlite3_int64 upto = sqlite3_column_int64(stmt, 1);
      if (!read) {
        norms->saved = 1;
      } else {
        const unsigned char *blob = (const unsigned char *)sqlite3_column_blob(stmt, 2);
        sqlite3_int64 n = sqlite3_column_bytes(stmt, 2);
        /* A saved row of the wrong size is ignored: the docsize table is read instead. */
        if (upto >= 0 && upto < NORMS_MAX_ROWID && n == 2 * (upto + 1) && blob) {
          if (!norms_reserve(norms, upto)) {
            rc = SQLITE_NOMEM;
          } else {
            for (sqlite3_int64 i = 0; i <= upto; i++)
              norms->len[i] = (unsigned short)(blob[2 * i] | (blob[2 * i + 1] << 8));
            norms->loadedMax = upto;
            norms->savedUpto = upto;
            norms->saved = 1;
          }
        }
      }
    }
    if (read) norms->epoch = epoch;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  return rc;
}

/* Read the rows of the docsize table added since the last read (all of them the first time, or
   those past the saved lengths). Never inside a write transaction (the caller checks): they would
   outlive a rollback. */
static int norms_load(sqlite3 *db, Norms *norms) {
  sqlite3_int64 from = norms->loaded ? norms->loadedMax : -1;
  if (!norms->loaded) {
    if (norms_saved(db, norms, 1) == SQLITE_NOMEM) return SQLITE_NOMEM;
    from = norms->savedUpto; /* -1 when none were read */
  }
  char *sql = sqlite3_mprintf("SELECT id, sz FROM \"%w\" WHERE id > ?1 ORDER BY id", norms->table);
  if (!sql) return SQLITE_NOMEM;
  sqlite3_stmt *stmt = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, 0);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(stmt, 1, from);
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    sqlite3_int64 rowid = sqlite3_column_int64(stmt, 0);
    if (rowid > norms->loadedMax) norms->loadedMax = rowid;
    if (rowid < 0 || rowid >= NORMS_MAX_ROWID) continue;
    if (!norms_reserve(norms, rowid)) {
      sqlite3_finalize(stmt);
      return SQLITE_NOMEM;
    }
    sqlite3_int64 length = record_length((const unsigned char *)sqlite3_column_blob(stmt, 1),
                                         sqlite3_column_bytes(stmt, 1));
    norms->len[rowid] = length < NORM_UNKNOWN ? (unsigned short)length : NORM_UNKNOWN;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return rc;
  norms->loaded = 1;
  return SQLITE_OK;
}

/* What one execution of a statement keeps between its rows. */
typedef struct RankData {
  int nPhrase;
  double avgdl;
  double *aIdf;         /* nPhrase inverse document frequencies */
  double *aFreq;        /* nPhrase weighted hit counts, for the row being scored */
  Lengths lengths;
} RankData;

static void rank_data_free(void *p) {
  RankData *data = (RankData *)p;
  if (data->lengths.sizes) sqlite3_blob_close(data->lengths.sizes);
  sqlite3_free(data);
}

/* How many lookups through the blob handle make loading an index of nRow rows worth it: a 16th
   of its rows when the docsize table must be read, NORMS_MIN when saved lengths can be. */
static double norms_threshold(sqlite3 *db, Norms *norms, sqlite3_int64 nRow) {
  double share = (double)nRow / NORMS_SHARE;
  if (share <= NORMS_MIN) return NORMS_MIN;
  if (norms->saved < 0 && !brain_writing(db)) norms_saved(db, norms, 0);
  return norms->saved == 1 ? NORMS_MIN : share;
}

/* The connection's norms of the docsize table named by `sizes`, read up to date when `load` or
   already loaded, and the connection is not writing; 0 when the lengths must come through the
   blob handle. */
Norms *brain_lengths_norms(sqlite3 *db, sqlite3_value *sizes, int load) {
  if (sqlite3_value_type(sizes) != SQLITE_TEXT) return 0;
  Norms *norms = norms_of(db, (const char *)sqlite3_value_text(sizes));
  if (!norms || norms->failed) return 0;
  if ((load || norms->loaded) && !brain_writing(db) &&
      norms_load(db, norms) != SQLITE_OK)
    return 0; /* read through the blob handle instead */
  return norms;
}

Norms *brain_norms_for(sqlite3 *db, sqlite3_value *sizes, sqlite3_int64 nRow, double rows) {
  Norms *norms = brain_lengths_norms(db, sizes, 0);
  if (norms && !norms->loaded && (double)norms->lookups + rows >= norms_threshold(db, norms, nRow))
    norms = brain_lengths_norms(db, sizes, 1);
  return norms;
}

/* xQueryPhrase's callback: one more row holds the phrase. */
static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
  (*(sqlite3_int64 *)user)++;
  return SQLITE_OK;
}

static int rank_data(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_value *df,
                     sqlite3_value *sizes, RankData **out) {
  RankData *data = (RankData *)api->xGetAuxdata(fts, 0);
  if (data) {
    *out = data;
    return SQLITE_OK;
  }
  int nPhrase = api->xPhraseCount(fts);
  int nBytes = sqlite3_value_bytes(df);
  int given = sqlite3_value_type(df) == SQLITE_BLOB && nBytes > 0 &&
              nBytes % (int)sizeof(double) == 0 && nBytes <= (int)(nPhrase * sizeof(double));
  /* Given counts for the first m phrases only, those are scored: the rest only select rows. */
  if (given) nPhrase = nBytes / (int)sizeof(double);
  sqlite3_int64 nRow = 0, nToken = 0;
  int rc = api->xRowCount(fts, &nRow);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
  if (rc != SQLITE_OK) return rc;

  size_t bytes = sizeof(RankData) + 2 * (size_t)nPhrase * sizeof(double);
  data = (RankData *)sqlite3_malloc64(bytes);
  if (!data) return SQLITE_NOMEM;
  memset(data, 0, bytes);
  data->nPhrase = nPhrase;
  data->aIdf = (double *)&data[1];
  data->aFreq = &data->aIdf[nPhrase];
  data->avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
  if (data->avgdl <= 0.0) data->avgdl = 1.0;

  const unsigned char *blob = given ? (const unsigned char *)sqlite3_value_blob(df) : 0;
  for (int i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
    double hits;
    if (blob) {
      memcpy(&hits, blob + i * sizeof(double), sizeof(double));
    } else {
      sqlite3_int64 n = 0;
      rc = api->xQueryPhrase(fts, i, &n, count_row);
      hits = (double)n;
    }
    double idf = log(((double)nRow - hits + 0.5) / (hits + 0.5));
    data->aIdf[i] = idf > 0.0 ? idf : 1e-6;
  }
  if (rc == SQLITE_OK) {
    /* Rows about to be scored, at most: with the lengths looked up so far, enough to load them. */
    double rows = 0.0;
    for (int i = 0; blob && i < nPhrase; i++) {
      double hits;
      memcpy(&hits, blob + i * sizeof(double), sizeof(double));
      rows += hits;
    }
    sqlite3 *db = (sqlite3 *)api->xUserData(fts);
    data->lengths.db = db;
    data->lengths.norms = brain_norms_for(db, sizes, nRow, rows);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(data);
    return rc;
  }
  rc = api->xSetAuxdata(fts, data, rank_data_free);
  if (rc != SQLITE_OK) return rc; /* xSetAuxdata has freed data */
  *out = data;
  return SQLITE_OK;
}

int brain_length_at(Lengths *lengths, const char *sizes, sqlite3_int64 rowid, int *length) {
  Norms *norms = lengths->norms;
  if (norms && norms->loaded && rowid >= 0 && rowid <= norms->loadedMax && rowid < norms->cap &&
      norms->len[rowid] != NORM_UNKNOWN) {
    *length = norms->len[rowid];
    return SQLITE_OK;
  }
  if (!lengths->sizesFailed && sizes) {
    int rc = lengths->sizes ? sqlite3_blob_reopen(lengths->sizes, rowid)
                            : sqlite3_blob_open(lengths->db, "main", sizes, "sz", rowid, 0,
                                                &lengths->sizes);
    unsigned char record[256];
    int n = rc == SQLITE_OK ? sqlite3_blob_bytes(lengths->sizes) : 0;
    if (rc == SQLITE_OK && n > 0 && n <= (int)sizeof(record) &&
        sqlite3_blob_read(lengths->sizes, record, n, 0) == SQLITE_OK) {
      *length = (int)record_length(record, n);
      if (norms) norms->lookups++;
      return SQLITE_OK;
    }
    /* A record past what a varint of this size allows, or a table that is not there: from now
       on, the caller asks FTS5. A blob handle left on an error is closed with its owner. */
    lengths->sizesFailed = 1;
  }
  return SQLITE_NOTFOUND;
}

/* The row's length in tokens, all columns: from memory, its docsize record, or FTS5. */
static int row_length(Lengths *lengths, const Fts5ExtensionApi *api, Fts5Context *fts,
                      sqlite3_value *sizes, int *length) {
  const char *table =
      sqlite3_value_type(sizes) == SQLITE_TEXT ? (const char *)sqlite3_value_text(sizes) : 0;
  if (brain_length_at(lengths, table, api->xRowid(fts), length) == SQLITE_OK) return SQLITE_OK;
  return api->xColumnSize(fts, -1, length);
}

int brain_phrase_hits(const Fts5ExtensionApi *api, Fts5Context *fts, int n, int nWeight,
                      sqlite3_value **weights, double *hits) {
  memset(hits, 0, sizeof(double) * (size_t)n);
  int nInst = 0;
  int rc = api->xInstCount(fts, &nInst);
  for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int phrase, column, offset;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase < n)
      hits[phrase] += column < nWeight ? sqlite3_value_double(weights[column]) : 1.0;
  }
  return rc;
}

/* The weighted hits of phrase `phrase` in the row: each hit counts its column's weight. */
int brain_row_hits(const Fts5ExtensionApi *api, Fts5Context *fts, int phrase, int nWeight,
                    sqlite3_value **weights, double *hits) {
  int nInst = 0;
  int rc = api->xInstCount(fts, &nInst);
  double f = 0.0;
  for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int p, column, offset;
    rc = api->xInst(fts, i, &p, &column, &offset);
    if (rc == SQLITE_OK && p == phrase)
      f += column < nWeight ? sqlite3_value_double(weights[column]) : 1.0;
  }
  *hits = f;
  return rc;
}

/* Whether `rowid` is in `sorted`, an ascending array of n rowids as native doubles. */
int brain_among(const unsigned char *sorted, int n, sqlite3_int64 rowid) {
  int lo = 0, hi = n;
  double want = (double)rowid;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    double v;
    memcpy(&v, sorted + (size_t)mid * sizeof(double), sizeof(double));
    if (v < want) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= n) return 0;
  double v;
  memcpy(&v, sorted + (size_t)lo * sizeof(double), sizeof(double));
  return v == want;
}

/* The score of the row brain_bm25 gives; `apVal` starts at df, then sizes, then the weights. */
static void bm25_of_row(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                        sqlite3_value *df, sqlite3_value *sizes, int nWeight,
                        sqlite3_value **weights) {
  RankData *data = 0;
  int rc = rank_data(api, fts, df, sizes, &data);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  rc = brain_phrase_hits(api, fts, data->nPhrase, nWeight, weights, data->aFreq);
  int length = 0;
  if (rc == SQLITE_OK) rc = row_length(&data->lengths, api, fts, sizes, &length);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }

  double norm = brain_norm(data->avgdl, length);
  double score = 0.0;
  for (int i = 0; i < data->nPhrase; i++) score += brain_term(data->aIdf[i], data->aFreq[i], norm);
  sqlite3_result_double(ctx, -score);
}

static void brain_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                       int nVal, sqlite3_value **apVal) {
  if (nVal < 2) {
    sqlite3_result_error(ctx, "brain_bm25: expects (fts, df, sizes, weights...)", -1);
    return;
  }
  bm25_of_row(api, fts, ctx, apVal[0], apVal[1], nVal - 2, &apVal[2]);
}

/*
 * Impacts: what a word's rows can score, by class. A row's BM25 score for one word depends on
 * the row only through f, the word's weighted hits in it, and D, its length: rows of one (f, D)
 * class score alike, whatever the index's mean length. brain_impacts(fts, sizes, keep, load,
 * w0, w1, ...) reads every row holding the MATCH expression's first phrase (through xQueryPhrase,
 * on the first row the statement gives it; later rows get NULL, so the statement needs LIMIT 1)
 * and returns, as a blob of native doubles:
 *
 *   nClasses, upto (the newest rowid read), total (the rows read),
 *   then for each class, best first at today's mean length: f, D, count, kept,
 *   then the kept rowids, class after class, each class's lowest first.
 *
 * A class keeps its lowest `keep` rowids (all of them when it has fewer) while the classes
 * before it hold fewer than 4 * keep rows; the classes after keep none. The exact top k of the
 * word (k <= keep) is then read from the classes (src/search/impacts.ts) while the best classes
 * at a later mean length are still among those that kept their rows. `load` reads the norms
 * into memory first (worth it for a word held by many rows).
 */
typedef struct ImpactClass {
  double f;
  int d;
  double impact; /* at the mean length, for the order of the output */
  sqlite3_int64 count;
  int kept, cap;
  sqlite3_int64 *rowids;
} ImpactClass;

typedef struct Impacts {
  int keep;
  int nWeight;
  sqlite3_value **weights;
  sqlite3_value *sizes;
  Lengths lengths;
  ImpactClass *classes;
  int nClass, capClass;
  int *slots; /* open addressing: class index + 1, 0 for empty */
  int nSlot;
  sqlite3_int64 upto, total;
  double avgdl;
} Impacts;

static unsigned impact_hash(double f, int d) {
  sqlite3_uint64 bits;
  memcpy(&bits, &f, sizeof(bits));
  bits ^= (sqlite3_uint64)(unsigned)d * 0x9E3779B97F4A7C15ull;
  bits ^= bits >> 29;
  bits *= 0xBF58476D1CE4E5B9ull;
  return (unsigned)(bits ^ (bits >> 32));
}

static int impacts_grow_slots(Impacts *im) {
  int nSlot = im->nSlot ? im->nSlot * 2 : 256;
  int *slots = (int *)sqlite3_malloc64((sqlite3_uint64)nSlot * sizeof(int));
  if (!slots) return SQLITE_NOMEM;
  memset(slots, 0, (size_t)nSlot * sizeof(int));
  for (int i = 0; i < im->nClass; i++) {
    unsigned h = impact_hash(im->classes[i].f, im->classes[i].d) & (unsigned)(nSlot - 1);
    while (slots[h]) h = (h + 1) & (unsigned)(nSlot - 1);
    slots[h] = i + 1;
  }
  sqlite3_free(im->slots);
  im->slots = slots;
  im->nSlot = nSlot;
  return SQLITE_OK;
}

/* The class of (f, d), made when first met; 0 when out of memory. */
static ImpactClass *impact_class(Impacts *im, double f, int d) {
  if (2 * (im->nClass + 1) > im->nSlot && impacts_grow_slots(im) != SQLITE_OK) return 0;
  unsigned mask = (unsigned)(im->nSlot - 1);
  unsigned h = impact_hash(f, d) & mask;
  while (im->slots[h]) {
    ImpactClass *c = &im->classes[im->slots[h] - 1];
    if (c->f == f && c->d == d) return c;
    h = (h + 1) & mask;
  }
  if (im->nClass == im->capClass) {
    int cap = im->capClass ? im->capClass * 2 : 64;
    ImpactClass *classes =
        (ImpactClass *)sqlite3_realloc64(im->classes, (sqlite3_uint64)cap * sizeof(ImpactClass));
    if (!classes) return 0;
    im->classes = classes;
    im->capClass = cap;
  }
  ImpactClass *c = &im->classes[im->nClass];
  memset(c, 0, sizeof(*c));
  c->f = f;
  c->d = d;
  im->slots[h] = ++im->nClass;
  return c;
}

static void impacts_free(Impacts *im) {
  for (int i = 0; i < im->nClass; i++) sqlite3_free(im->classes[i].rowids);
  sqlite3_free(im->classes);
  sqlite3_free(im->slots);
  if (im->lengths.sizes) sqlite3_blob_close(im->lengths.sizes);
}

/* xQueryPhrase's callback: one more row holds the word. */
static int impacts_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
  Impacts *im = (Impacts *)user;
  double f = 0.0;
  int d = 0;
  int rc = brain_row_hits(api, fts, 0, im->nWeight, im->weights, &f);
  if (rc == SQLITE_OK) rc = row_length(&im->lengths, api, fts, im->sizes, &d);
  if (rc != SQLITE_OK) return rc;
  ImpactClass *c = impact_class(im, f, d);
  if (!c) return SQLITE_NOMEM;
  sqlite3_int64 rowid = api->xRowid(fts);
  c->count++;
  if (c->kept < im->keep) {
    if (c->kept == c->cap) {
      int cap = c->cap ? c->cap * 4 : 4;
      if (cap > im->keep) cap = im->keep;
      sqlite3_int64 *rowids =
          (sqlite3_int64 *)sqlite3_realloc64(c->rowids, (sqlite3_uint64)cap * sizeof(*rowids));
      if (!rowids) return SQLITE_NOMEM;
      c->rowids = rowids;
      c->cap = cap;
    }
    c->rowids[c->kept++] = rowid;
  }
  if (rowid > im->upto) im->upto = rowid;
  im->total++;
  return SQLITE_OK;
}

/* What a row of the class scores for the word, idf aside, at the mean length. */
static double impact_of(const ImpactClass *c, double avgdl) {
  return brain_term(1.0, c->f, brain_norm(avgdl, c->d));
}

static int by_impact(const void *a, const void *b) {
  double x = ((const ImpactClass *)a)->impact, y = ((const ImpactClass *)b)->impact;
  return x > y ? -1 : x < y ? 1 : 0;
}

static void brain_impacts(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                          int nVal, sqlite3_value **apVal) {
  if (nVal < 3) {
    sqlite3_result_error(ctx, "brain_impacts: expects (fts, sizes, keep, load, weights...)", -1);
    return;
  }
  if (api->xGetAuxdata(fts, 0)) {
    sqlite3_result_null(ctx); /* read once per statement, on its first row */
    return;
  }
  int rc = api->xSetAuxdata(fts, (void *)1, 0);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  Impacts im;
  memset(&im, 0, sizeof(im));
  im.keep = sqlite3_value_int(apVal[1]);
  if (im.keep < 1) im.keep = 1;
  im.sizes = apVal[0];
  im.nWeight = nVal - 3;
  im.weights = &apVal[3];
  sqlite3 *db = (sqlite3 *)api->xUserData(fts);
  im.lengths.db = db;
  im.lengths.norms = brain_lengths_norms(db, apVal[0], sqlite3_value_int(apVal[2]) != 0);

  sqlite3_int64 nRow = 0, nToken = 0;
  rc = api->xRowCount(fts, &nRow);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
  im.avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
  if (im.avgdl <= 0.0) im.avgdl = 1.0;
  if (rc == SQLITE_OK) rc = api->xQueryPhrase(fts, 0, &im, impacts_row);
  if (rc != SQLITE_OK) {
    impacts_free(&im);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  /* Best class first. The hash is no longer needed once the classes move. */
  for (int i = 0; i < im.nClass; i++) im.classes[i].impact = impact_of(&im.classes[i], im.avgdl);
  qsort(im.classes, (size_t)im.nClass, sizeof(ImpactClass), by_impact);
  sqlite3_int64 before = 0, nKept = 0;
  for (int i = 0; i < im.nClass; i++) {
    if (before >= 4 * (sqlite3_int64)im.keep) im.classes[i].kept = 0;
    before += im.classes[i].count;
    nKept += im.classes[i].kept;
  }
  sqlite3_uint64 nDouble = 3 + 4 * (sqlite3_uint64)im.nClass + (sqlite3_uint64)nKept;
  double *out = (double *)sqlite3_malloc64(nDouble * sizeof(double));
  if (!out) {
    impacts_free(&im);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  double *p = out;
  *p++ = (double)im.nClass;
  *p++ = (double)im.upto;
  *p++ = (double)im.total;
  for (int i = 0; i < im.nClass; i++) {
    *p++ = im.classes[i].f;
    *p++ = (double)im.classes[i].d;
    *p++ = (double)im.classes[i].count;
    *p++ = (double)im.classes[i].kept;
  }
  for (int i = 0; i < im.nClass; i++)
    for (int j = 0; j < im.classes[i].kept; j++) *p++ = (double)im.classes[i].rowids[j];
  impacts_free(&im);
  sqlite3_result_blob64(ctx, out, nDouble * sizeof(double), sqlite3_free);
}

/* brain_hits(fts, w0, w1, ...): the weighted hits of the MATCH expression's first phrase in the
   row (f above). brain_length(fts, sizes): the row's length in tokens (D above). */
static void brain_hits(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                       int nVal, sqlite3_value **apVal) {
  double f = 0.0;
  int rc = brain_row_hits(api, fts, 0, nVal, apVal, &f);
  if (rc != SQLITE_OK) sqlite3_result_error_code(ctx, rc);
  else sqlite3_result_double(ctx, f);
}

static void lengths_free(void *p) {
  Lengths *lengths = (Lengths *)p;
  if (lengths->sizes) sqlite3_blob_close(lengths->sizes);
  sqlite3_free(lengths);
}

static void brain_length(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                         int nVal, sqlite3_value **apVal) {
  if (nVal < 1) {
    sqlite3_result_error(ctx, "brain_length: expects (fts, sizes)", -1);
    return;
  }
  Lengths *lengths = (Lengths *)api->xGetAuxdata(fts, 0);
  int rc = SQLITE_OK;
  if (!lengths) {
    lengths = (Lengths *)sqlite3_malloc64(sizeof(Lengths));
    if (!lengths) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    memset(lengths, 0, sizeof(*lengths));
    lengths->db = (sqlite3 *)api->xUserData(fts);
    sqlite3_int64 nRow = 0;
    lengths->norms = brain_lengths_norms(lengths->db, apVal[0], 0);
    if (lengths->norms && !lengths->norms->loaded && api->xRowCount(fts, &nRow) == SQLITE_OK &&
        (double)lengths->norms->lookups >= norms_threshold(lengths->db, lengths->norms, nRow))
      lengths->norms = brain_lengths_norms(lengths->db, apVal[0], 1);
    rc = api->xSetAuxdata(fts, lengths, lengths_free);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc); /* xSetAuxdata has freed it */
      return;
    }
  }
  int d = 0;
  rc = row_length(lengths, api, fts, apVal[0], &d);
  if (rc != SQLITE_OK) sqlite3_result_error_code(ctx, rc);
  else sqlite3_result_int(ctx, d);
}

/* brain_fts_norms(sizes): read the docsize table's lengths into memory now; the last rowid read.
   brain_fts_norms(sizes, 0) only says it: -1 while the connection has not read them. Inside a
   write transaction it reads nothing, and says what it holds. */
static void brain_fts_norms(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  if (sqlite3_value_type(apVal[0]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "brain_fts_norms: expects the docsize table's name", -1);
    return;
  }
  Norms *norms = norms_of(db, (const char *)sqlite3_value_text(apVal[0]));
  if (!norms) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if ((nVal > 1 && sqlite3_value_int(apVal[1]) == 0) || brain_writing(db)) {
    sqlite3_result_int64(ctx, norms->loaded ? norms->loadedMax : -1);
    return;
  }
  int rc = norms_load(db, norms);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_int64(ctx, norms->loadedMax);
}

/* brain_fts_norms_export(sizes): the connection's lengths of the index, to be saved: the epoch
   they were first read in and their last rowid (int64 little-endian each), then the length of
   each rowid from 0 as uint16 little-endian. NULL when they are not loaded, their epoch is not
   known, or the saved lengths hold all but a 16th of them (at least NORMS_MIN rows): those past
   the saved ones cost little to read. Once handed out, they count as saved on this connection. */
static void brain_fts_norms_export(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  if (sqlite3_value_type(apVal[0]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "brain_fts_norms_export: expects the docsize table's name", -1);
    return;
  }
  Norms *norms = norms_of(db, (const char *)sqlite3_value_text(apVal[0]));
  if (!norms) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_int64 upto = norms->loadedMax;
  sqlite3_int64 stale = upto / NORMS_SHARE > NORMS_MIN ? upto / NORMS_SHARE : NORMS_MIN;
  if (!norms->loaded || norms->failed || norms->epoch < 0 || upto < 0 ||
      upto >= NORMS_MAX_ROWID || upto - norms->savedUpto < stale) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_int64 bytes = 16 + 2 * (upto + 1);
  unsigned char *out = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)bytes);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (int i = 0; i < 8; i++) {
    out[i] = (unsigned char)((sqlite3_uint64)norms->epoch >> (8 * i));
    out[8 + i] = (unsigned char)((sqlite3_uint64)upto >> (8 * i));
  }
  for (sqlite3_int64 r = 0; r <= upto; r++) {
    unsigned short length = r < norms->cap ? norms->len[r] : NORM_UNKNOWN;
    out[16 + 2 * r] = (unsigned char)(length & 0xff);
    out[17 + 2 * r] = (unsigned char)(length >> 8);
  }
  norms->savedUpto = upto;
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)bytes, sqlite3_free);
}

/* brain_token(text): the tokens the indexes' tokenizer (porter over unicode61, diacritics removed:
   schema.sql) makes of a query text, space-separated, as FTS5 would look them up. What a word's
   row count is kept under when every word of an index is counted at once (word-counts.ts). */
typedef struct Tokens {
  sqlite3_str *out;
  int n;
} Tokens;

static int token_out(void *p, int tflags, const char *token, int nToken, int start, int end) {
  Tokens *tokens = (Tokens *)p;
  if (tflags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
  if (tokens->n++ > 0) sqlite3_str_appendchar(tokens->out, 1, ' ');
  sqlite3_str_append(tokens->out, token, nToken);
  return SQLITE_OK;
}

static void brain_token(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  fts5_api *fts5 = (fts5_api *)sqlite3_user_data(ctx);
  const char *text = (const char *)sqlite3_value_text(apVal[0]);
  int n = sqlite3_value_bytes(apVal[0]);
  if (!text) {
    sqlite3_result_null(ctx);
    return;
  }
  void *user = 0;
  fts5_tokenizer tokenizer;
  int rc = fts5->xFindTokenizer(fts5, "porter", &user, &tokenizer);
  if (rc != SQLITE_OK) {
    sqlite3_result_error(ctx, "brain_token: no porter tokenizer", -1);
    return;
  }
  const char *args[] = {"unicode61", "remove_diacritics", "2"};
  Fts5Tokenizer *tok = 0;
  rc = tokenizer.xCreate(user, args, 3, &tok);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  Tokens tokens = {sqlite3_str_new(sqlite3_context_db_handle(ctx)), 0};
  rc = tokenizer.xTokenize(tok, &tokens, FTS5_TOKENIZE_QUERY, text, n, token_out);
  tokenizer.xDelete(tok);
  char *joined = sqlite3_str_finish(tokens.out);
  if (rc != SQLITE_OK) {
    sqlite3_free(joined);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  if (!joined) sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  else sqlite3_result_text(ctx, joined, -1, sqlite3_free);
}

/* brain_fts_abi(): the version of the functions' arguments and results. The JavaScript that calls
   them loads a build only when it says the version that JavaScript was written for
   (src/db/rank-extension.ts): a build left from older sources (sources pulled, `npm install` not
   run again) would read a newer call's arguments in the wrong places. Raise it with any change
   to an argument or a result. */
#ifndef BRAIN_FTS_ABI
#define BRAIN_FTS_ABI 2
#endif

static void brain_fts_abi(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  sqlite3_result_int(ctx, BRAIN_FTS_ABI);
}

/* FTS5's API, asked of the connection as its documentation shows. */
static fts5_api *fts5_of(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *stmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

/* The one symbol the library exports (binding.gyp builds with hidden visibility): the functions
   the two files share stay private to this build, so two builds loaded in one process (two
   checkouts' tests) never call each other's. */
#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_brainfts_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  fts5_api *fts5 = fts5_of(db);
  if (!fts5 || fts5->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("brain_fts: this SQLite has no FTS5");
    return SQLITE_ERROR;
  }
  int rc = fts5->xCreateFunction(fts5, "brain_bm25", (void *)db, brain_bm25, 0);
  if (rc == SQLITE_OK)
    rc = fts5->xCreateFunction(fts5, "brain_impacts", (void *)db, brain_impacts, 0);
  if (rc == SQLITE_OK) rc = fts5->xCreateFunction(fts5, "brain_topk", (void *)db, brain_topk, 0);
  if (rc == SQLITE_OK)
    rc = fts5->xCreateFunction(fts5, "brain_hits_all", (void *)db, brain_hits_all, 0);
  if (rc == SQLITE_OK) rc = fts5->xCreateFunction(fts5, "brain_hits", (void *)db, brain_hits, 0);
  if (rc == SQLITE_OK)
    rc = fts5->xCreateFunction(fts5, "brain_length", (void *)db, brain_length, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "brain_fts_norms", 1, SQLITE_UTF8, 0, brain_fts_norms, 0,
                                    0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "brain_fts_norms", 2, SQLITE_UTF8, 0, brain_fts_norms, 0,
                                    0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "brain_fts_norms_export", 1, SQLITE_UTF8, 0,
                                    brain_fts_norms_export, 0, 0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "brain_token", 1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                    (void *)fts5, brain_token, 0, 0, 0);
  if (rc == SQLITE_OK) rc = brain_snippet_register(db, fts5);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "brain_fts_abi", 0,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0,
                                    brain_fts_abi, 0, 0, 0);
  return rc;
}
