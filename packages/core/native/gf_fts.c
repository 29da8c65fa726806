/*
** gf_fts — Greenfinger's SQLite extension for its full-text index. src/index/fts-extension.ts loads it into every
** connection that opens an index file; scripts/build-native.mjs builds it against the SQLite of better-sqlite3.
**
** Tokenizer `gf_pairs <delegate> [args…]`, e.g. `tokenize = 'gf_pairs porter unicode61 remove_diacritics 2'`, for
** the word-pair table (`pairs_fts`, see src/index/fts-pairs.ts):
**
**  - documents (FTS5_TOKENIZE_DOCUMENT): a column's first term as the delegate makes it, then for every later term
**    the pair `<previous term>\x1f<term>`, at the position of the second. One token per word, so a column has the
**    same size as with the delegate alone and bm25's document lengths are unchanged. A phrase of two words is then
**    one term, whose posting list holds exactly the documents and positions where the phrase occurs: its document
**    count, term frequencies and bm25 are the phrase's, without reading the positions of every document that has
**    both words. A phrase of n words is a phrase of its n − 1 pairs (Lucene calls such an index "shingles").
**  - queries (FTS5_TOKENIZE_QUERY): a text that starts with \x1f is one index term, taken as it is (no stemming,
**    no case folding): `"\x1fthe\x1fobject"` is the pair of `the` and `object`, `"\x1fa\x1fb" + "\x1fb\x1fc"` the
**    phrase "a b c". Anything else goes to the delegate unchanged (the scope tokens `v3`).
**  - anything else (highlight(), snippet()): the delegate alone.
**
** Synonyms a delegate might give (FTS5_TOKEN_COLOCATED) are dropped: porter and unicode61 give none.
** Written against the FTS5 tokenizer API of sqlite3.h (fts5_tokenizer, SQLite 3.9 and later).
*/
#include <sqlite3ext.h>
#include <string.h>
SQLITE_EXTENSION_INIT1

#define PAIR_SEP '\x1f'

typedef struct PairsTokenizer {
  fts5_tokenizer delegate;
  Fts5Tokenizer *inner;
} PairsTokenizer;

typedef struct PairsCtx {
  void *user;
  int (*xToken)(void *, int, const char *, int, int, int);
  char *buf; /* `<previous term>\x1f` followed by room for the current term */
  int cap;
  int nPrev; /* bytes of the previous term at the start of buf; -1 before a column's first term */
} PairsCtx;

static int reserve(PairsCtx *c, int need) {
  if (need <= c->cap) return SQLITE_OK;
  int n = c->cap ? c->cap : 128;
  while (n < need) n *= 2;
  char *p = sqlite3_realloc(c->buf, n);
  if (!p) return SQLITE_NOMEM;
  c->buf = p;
  c->cap = n;
  return SQLITE_OK;
}

static int pairsToken(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
  PairsCtx *c = (PairsCtx *)pCtx;
  if (tflags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
  int rc;
  if (c->nPrev < 0) {
    rc = c->xToken(c->user, 0, pToken, nToken, iStart, iEnd);
  } else {
    rc = reserve(c, c->nPrev + 1 + nToken);
    if (rc != SQLITE_OK) return rc;
    c->buf[c->nPrev] = PAIR_SEP;
    memcpy(c->buf + c->nPrev + 1, pToken, nToken);
    rc = c->xToken(c->user, 0, c->buf, c->nPrev + 1 + nToken, iStart, iEnd);
  }
  if (rc != SQLITE_OK) return rc;
  /* The current term becomes the previous one. */
  rc = reserve(c, nToken + 1);
  if (rc != SQLITE_OK) return rc;
  memcpy(c->buf, pToken, nToken); /* pToken is the delegate's buffer, never ours */
  c->nPrev = nToken;
  return SQLITE_OK;
}

static int pairsCreate(void *pApiCtx, const char **azArg, int nArg, Fts5Tokenizer **ppOut) {
  fts5_api *api = (fts5_api *)pApiCtx;
  *ppOut = 0;
  PairsTokenizer *t = sqlite3_malloc(sizeof(PairsTokenizer));
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof(*t));
  void *userdata = 0;
  int rc = api->xFindTokenizer(api, nArg > 0 ? azArg[0] : "unicode61", &userdata, &t->delegate);
  if (rc == SQLITE_OK) rc = t->delegate.xCreate(userdata, nArg > 1 ? &azArg[1] : 0, nArg > 1 ? nArg - 1 : 0, &t->inner);
  if (rc != SQLITE_OK) {
    sqlite3_free(t);
    return rc;
  }
  *ppOut = (Fts5Tokenizer *)t;
  return SQLITE_OK;
}

static void pairsDelete(Fts5Tokenizer *p) {
  PairsTokenizer *t = (PairsTokenizer *)p;
  if (!t) return;
  if (t->inner) t->delegate.xDelete(t->inner);
  sqlite3_free(t);
}

static int pairsTokenize(Fts5Tokenizer *p, void *pCtx, int flags, const char *pText, int nText,
                         int (*xToken)(void *, int, const char *, int, int, int)) {
  PairsTokenizer *t = (PairsTokenizer *)p;
  if ((flags & FTS5_TOKENIZE_QUERY) && nText > 1 && pText[0] == PAIR_SEP) {
    return xToken(pCtx, 0, pText + 1, nText - 1, 0, nText);
  }
  if (!(flags & FTS5_TOKENIZE_DOCUMENT)) return t->delegate.xTokenize(t->inner, pCtx, flags, pText, nText, xToken);
  PairsCtx c;
  memset(&c, 0, sizeof(c));
  c.user = pCtx;
  c.xToken = xToken;
  c.nPrev = -1;
  int rc = t->delegate.xTokenize(t->inner, &c, flags, pText, nText, pairsToken);
  sqlite3_free(c.buf);
  return rc;
}

static fts5_api *ftsApi(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *stmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != SQLITE_OK) return 0;
  sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return api;
}

/* gf_fts_version(): the version of this extension, to tell what a connection has loaded. */
static void versionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_int(ctx, 1);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_gffts_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  fts5_api *api = ftsApi(db);
  if (!api || api->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("gf_fts: this SQLite has no FTS5");
    return SQLITE_ERROR;
  }
  static fts5_tokenizer pairs = {pairsCreate, pairsDelete, pairsTokenize};
  int rc = api->xCreateTokenizer(api, "gf_pairs", (void *)api, &pairs, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "gf_fts_version", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, versionFunc, 0, 0);
  return rc;
}
