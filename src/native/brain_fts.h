/* What brain_fts.c shares with brain_topk.c: row lengths in memory, and reading them. */
#ifndef BRAIN_FTS_H
#define BRAIN_FTS_H

#include "sqlite3ext.h"

#define BRAIN_K1 1.2
#define BRAIN_B 0.75
#define NORM_UNKNOWN 0xFFFF

/* One index's row lengths, kept with the connection (sqlite3_set_clientdata). */
typedef struct Norms {
  char *table;             /* the docsize table */
  int loaded;              /* the table has been read up to loadedMax */
  sqlite3_int64 loadedMax; /* rows with rowid <= loadedMax are in `len` (or absent) */
  sqlite3_int64 cap;       /* entries of `len` */
  unsigned short *len;     /* by rowid; NORM_UNKNOWN when absent or too long */
  sqlite3_int64 lookups;   /* lengths read through the blob handle */
  int failed;              /* out of memory once: lengths come through the blob handle */
  const char *index;       /* the index's name in search_count_epochs, 0 when not one of brain's */
  sqlite3_int64 epoch;     /* the index's epoch when the lengths were first read, -1 unknown */
  sqlite3_int64 savedUpto; /* the last rowid of the saved lengths read or handed out, -1 none */
  int saved;               /* search_norms holds lengths valid now: 1 yes, 0 no, -1 not asked */
} Norms;

/* Where a statement reads row lengths from: memory, the docsize table, or FTS5. */
typedef struct Lengths {
  sqlite3 *db;          /* the connection (xUserData is not there in xQueryPhrase's callbacks) */
  sqlite3_blob *sizes;  /* on the docsize table's sz column, moved from row to row */
  int sizesFailed;      /* the docsize table could not be read: use xColumnSize */
  Norms *norms;         /* the index's row lengths in memory, when the connection keeps them */
} Lengths;

/* BM25's divisor for a row of `length` tokens, and what one word adds to it: the one expression
   brain_bm25 and brain_topk both compute, so that their doubles are equal (both files are built
   with -ffp-contract=off). */
static inline double brain_norm(double avgdl, int length) {
  return BRAIN_K1 * (1.0 - BRAIN_B + BRAIN_B * (double)length / avgdl);
}
static inline double brain_term(double idf, double f, double norm) {
  return idf * (f * (BRAIN_K1 + 1.0)) / (f + norm);
}

/* Whether the connection has a write transaction open: the rows it sees may yet be rolled back. */
int brain_writing(sqlite3 *db);

/* The connection's norms of the docsize table named by `sizes`, read up to date when `load` or
   already loaded, and the connection is not writing; 0 when the lengths must come through the
   blob handle. */
Norms *brain_lengths_norms(sqlite3 *db, sqlite3_value *sizes, int load);

/* The norms for a statement about to look up the lengths of `rows` of an index of nRow rows:
   loaded first when that many lookups would cost about what loading does. */
Norms *brain_norms_for(sqlite3 *db, sqlite3_value *sizes, sqlite3_int64 nRow, double rows);

/* The length of row `rowid` from memory or its docsize record; SQLITE_NOTFOUND when neither has
   it. */
int brain_length_at(Lengths *lengths, const char *sizes, sqlite3_int64 rowid, int *length);

/* The weighted hits of phrase `phrase` in the row: each hit counts its column's weight. */
int brain_row_hits(const Fts5ExtensionApi *api, Fts5Context *fts, int phrase, int nWeight,
                   sqlite3_value **weights, double *hits);

/* The weighted hits of each of the first n phrases in the row, into hits[0..n). */
int brain_phrase_hits(const Fts5ExtensionApi *api, Fts5Context *fts, int n, int nWeight,
                      sqlite3_value **weights, double *hits);

/* Whether `rowid` is in `sorted`, an ascending array of n rowids as native doubles. */
int brain_among(const unsigned char *sorted, int n, sqlite3_int64 rowid);

/* brain_topk and brain_hits_all (brain_topk.c). */
void brain_hits_all(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                    sqlite3_value **apVal);
void brain_topk(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                sqlite3_value **apVal);

/* brain_snippet(words, column, tokens, open, close, ellipsis, text0, ...) (brain_snippet.c). */
int brain_snippet_register(sqlite3 *db, fts5_api *fts5);

#endif
