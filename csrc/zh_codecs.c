/* bytes->bytes codecs for the native engine.  See zh_codecs.h. */
#include "zh_codecs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blosc2.h"
#include "zh_blosc1.h"
#include "zh_zlib.h"

/* zstd comes from the static libblosc2 (it bundles zstd); its header is not shipped, so
 * the few stable entry points used are declared here. */
typedef struct ZSTD_DCtx_s ZSTD_DCtx;
typedef struct ZSTD_CCtx_s ZSTD_CCtx;
ZSTD_DCtx *ZSTD_createDCtx(void);
size_t ZSTD_freeDCtx(ZSTD_DCtx *);
ZSTD_CCtx *ZSTD_createCCtx(void);
size_t ZSTD_freeCCtx(ZSTD_CCtx *);
size_t ZSTD_decompressDCtx(ZSTD_DCtx *, void *, size_t, const void *, size_t);
unsigned long long ZSTD_getFrameContentSize(const void *, size_t);
size_t ZSTD_compressBound(size_t);
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *, int, int);
size_t ZSTD_CCtx_reset(ZSTD_CCtx *, int);
size_t ZSTD_compress2(ZSTD_CCtx *, void *, size_t, const void *, size_t);
unsigned ZSTD_isError(size_t);
const char *ZSTD_getErrorName(size_t);
#define ZH_ZSTD_CONTENTSIZE_UNKNOWN (0ULL - 1)
#define ZH_ZSTD_CONTENTSIZE_ERROR (0ULL - 2)
#define ZH_ZSTD_c_compressionLevel 100
#define ZH_ZSTD_c_checksumFlag 201
#define ZH_ZSTD_reset_session_and_parameters 3

struct zh_wctx {
    ZSTD_DCtx *zd;
    ZSTD_CCtx *zc;
    blosc2_context *bd;
    char *buf[4];
    size_t cap[4];
};

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static zh_blosc1_compress_fn g_blosc1_compress = NULL;

static void wctx_free(void *p) {
    zh_wctx *w = (zh_wctx *)p;
    if (!w) return;
    if (w->zd) ZSTD_freeDCtx(w->zd);
    if (w->zc) ZSTD_freeCCtx(w->zc);
    if (w->bd) blosc2_free_ctx(w->bd);
    for (int i = 0; i < 4; i++) free(w->buf[i]);
    free(w);
}

static void make_key(void) {
    blosc2_init();
    pthread_key_create(&g_key, wctx_free);
}

zh_wctx *zh_wctx_get(void) {
    pthread_once(&g_once, make_key);
    zh_wctx *w = (zh_wctx *)pthread_getspecific(g_key);
    if (!w) {
        w = (zh_wctx *)calloc(1, sizeof(*w));
        if (w) pthread_setspecific(g_key, w);
    }
    return w;
}

char *zh_scratch(zh_wctx *w, int which, size_t n) {
    if (n == 0) n = 1;
    if (w->cap[which] < n) {
        size_t cap = n + n / 8;
        free(w->buf[which]);
        w->buf[which] = (char *)malloc(cap);
        w->cap[which] = w->buf[which] ? cap : 0;
    }
    return w->buf[which];
}

/* The calling thread's blosc decoder context.  A context that failed, or that decoded a
 * chunk in the blosc2 (extended header) format, keeps state that makes later c-blosc1
 * chunks decode to wrong bytes without an error (seen with c-blosc2 2.x), so such a
 * context is never reused: blosc_dctx_done() discards it. */
static blosc2_context *blosc_dctx(zh_wctx *w) {
    if (!w->bd) {
        blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.nthreads = 1;
        w->bd = blosc2_create_dctx(dp);
    }
    return w->bd;
}

static void blosc_dctx_done(zh_wctx *w, const char *chunk, int failed) {
    if (w->bd && (failed || ((unsigned char)chunk[2] & 0x05) == 0x05)) {
        blosc2_free_ctx(w->bd);
        w->bd = NULL;
    }
}

static uint32_t load_le32(const unsigned char *p);

/* Whether c-blosc2 (2.x-3.x) writes every output byte of this chunk.  It reports success
 * while leaving output bytes unwritten -- whatever the destination held (another chunk's
 * bytes, the caller's array, its own scratch block) came back as data -- for:
 * - bit-shuffled c-blosc1 blocks (format version 2) of b bytes holding a multiple of 8
 *   whole elements and a partial one (b / ts % 8 == 0, b % ts != 0; so also every block
 *   smaller than the typesize): c-blosc2's bitunshuffle (shuffle.c) transposes the
 *   b / ts elements and leaves the last b % ts bytes unwritten.  Valid chunks too:
 *   numcodecs writes them (71 of 990 chunks of a sweep over odd typesizes had the
 *   typesize past the block size; typesize 3 on 128 bytes in 126-byte blocks leaves a
 *   2-byte leftover block) and c-blosc1 reads them right: BLOSC_FIT_C1, the Python codec
 *   decodes them with numcodecs;
 * - split blocks (flag 0x10 clear, typesize > 1) whose size is no multiple of the
 *   typesize: each of the typesize streams holds bsize / typesize bytes and the rest of
 *   the block is never written (the whole-chunk decode comes up short and is refused, but
 *   the item-range decode counts the block as written); no writer makes them (c-blosc1
 *   rounds blocks to whole elements): BLOSC_FIT_C1, the Python codec refuses them;
 * - blosc2-format chunks of the special kind "uninitialized" (no values at all):
 *   BLOSC_FIT_C1, the Python codec refuses them.
 * codecs/blosc.py's _decode_fit applies the same rules to its own decode. */
enum { BLOSC_FIT_C1 = -1, BLOSC_FIT_OK = 1 };

static int blosc_decode_fit(const char *hdr) {
    unsigned char flags = (unsigned char)hdr[2];
    int64_t ts = (unsigned char)hdr[3];
    int64_t nbytes = (int32_t)load_le32((const unsigned char *)hdr + 4);
    int64_t bs = (int32_t)load_le32((const unsigned char *)hdr + 8);
    int extended = (flags & 0x05) == 0x05;
    /* (the callers checked that an extended header's 32 bytes are there) */
    int special = extended ? ((unsigned char)hdr[31] >> 4) & 0x07 : 0;
    int vlblocks = extended && ((unsigned char)hdr[30] & 0x01);
    if (special == 4) return BLOSC_FIT_C1; /* BLOSC2_SPECIAL_UNINIT */
    if (special || (flags & 0x02) || nbytes <= 0 || bs <= 0) return BLOSC_FIT_OK;
    int64_t block = bs < nbytes ? bs : nbytes; /* c-blosc2 clamps the block to the chunk */
    if (!(flags & 0x10) && !vlblocks && ts > 1 && block % ts != 0) return BLOSC_FIT_C1;
    if (extended || !(flags & 0x04) || ts <= 1) return BLOSC_FIT_OK;
    int64_t left = nbytes % block;
    if ((block % ts != 0 && (block / ts) % 8 == 0) || (left % ts != 0 && (left / ts) % 8 == 0))
        return BLOSC_FIT_C1;
    return BLOSC_FIT_OK;
}

void zh_set_blosc1_compress(zh_blosc1_compress_fn fn) { g_blosc1_compress = fn; }
int zh_have_blosc1_compress(void) { return g_blosc1_compress != NULL; }

/* ---------------------------------------------------------------- decode */

static uint32_t load_le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static size_t step_bound(const zh_bb *s, size_t n);

/* The most bytes decoding step i can produce when its size is not fixed (a compressor
 * followed by another): what the encoding steps between the nearest step of fixed
 * decoded size and step i can make of that size at worst.  -1 when no size before it is
 * fixed.  A header declaring more is corrupt or a bomb: the engine never allocates it
 * (the Python codecs, which name the problem, get the chunk). */
static int64_t step_decode_limit(const zh_bb *steps, int i) {
    int j = i;
    while (j >= 0 && steps[j].decoded_size < 0) j--;
    if (j < 0) return -1;
    size_t lim = (size_t)steps[j].decoded_size;
    for (int k = j; k < i; k++) lim = step_bound(&steps[k], lim);
    return lim > (size_t)INT64_MAX ? -1 : (int64_t)lim;
}

int zh_decode_bytes(zh_wctx *w, const zh_bb *steps, int nsteps, const char *src, size_t n,
                    char *final_dst, size_t final_cap, const char **out, size_t *out_n,
                    char *err, size_t errlen) {
    const char *cur = src;
    int cur_buf = -1; /* which scratch holds cur (-1: neither 1 nor 2) */
    for (int i = nsteps - 1; i >= 0; i--) {
        const zh_bb *s = &steps[i];
        if (s->kind == ZH_BB_CRC32C) {
            if (n < 4) {
                snprintf(err, errlen, "crc32c: expected at least 4 bytes, got %zu", n);
                return ZH_ERR_CORRUPT;
            }
            uint32_t stored = load_le32((const unsigned char *)cur + n - 4);
            uint32_t got = zh_crc32c(0, cur, n - 4);
            if (stored != got) {
                snprintf(err, errlen, "crc32c: checksum mismatch: stored 0x%08x, computed 0x%08x",
                         stored, got);
                return ZH_ERR_CORRUPT;
            }
            n -= 4;
            if (s->decoded_size >= 0 && (int64_t)n != s->decoded_size) {
                snprintf(err, errlen, "crc32c: expected %lld bytes before the checksum, got %zu",
                         (long long)s->decoded_size, n);
                return ZH_ERR_CORRUPT;
            }
            continue;
        }
        /* the expected output size */
        int64_t expect = s->decoded_size;
        int32_t bl_nbytes = 0, bl_cbytes = 0, bl_block = 0;
        if (s->kind == ZH_BB_BLOSC) {
            if (n < BLOSC_MIN_HEADER_LENGTH) {
                snprintf(err, errlen, "blosc: expected at least %d bytes (the header), got %zu",
                         BLOSC_MIN_HEADER_LENGTH, n);
                return ZH_ERR_CORRUPT;
            }
            unsigned char flags = (unsigned char)cur[2];
            if ((flags & 0x05) == 0x05 && n < BLOSC_EXTENDED_HEADER_LENGTH) {
                snprintf(err, errlen, "blosc: expected at least %d bytes (extended header), got %zu",
                         BLOSC_EXTENDED_HEADER_LENGTH, n);
                return ZH_ERR_CORRUPT;
            }
            if (blosc2_cbuffer_sizes(cur, &bl_nbytes, &bl_cbytes, &bl_block) < 0 || bl_nbytes < 0) {
                snprintf(err, errlen, "blosc: invalid header");
                return ZH_ERR_CORRUPT;
            }
            if (bl_cbytes < BLOSC_MIN_HEADER_LENGTH || (size_t)bl_cbytes > n) {
                snprintf(err, errlen, "blosc: header declares %d compressed bytes, got %zu",
                         bl_cbytes, n);
                return ZH_ERR_CORRUPT;
            }
            /* bytes after the frame (padding some writers add) are ignored, as c-blosc does */
            n = (size_t)bl_cbytes;
            if (expect >= 0 && bl_nbytes != expect) {
                snprintf(err, errlen, "blosc: header declares %d decoded bytes, expected %lld",
                         bl_nbytes, (long long)expect);
                return ZH_ERR_CORRUPT;
            }
            if (expect < 0) {
                int64_t lim = step_decode_limit(steps, i);
                if (lim < 0 || bl_nbytes > lim) return ZH_FALLBACK;
            }
            expect = bl_nbytes;
        } else if (s->kind == ZH_BB_ZSTD && expect < 0) {
            unsigned long long fcs = ZSTD_getFrameContentSize(cur, n);
            if (fcs == ZH_ZSTD_CONTENTSIZE_ERROR) {
                snprintf(err, errlen, "zstd: cannot decode: not a zstd frame");
                return ZH_ERR_CORRUPT;
            }
            int64_t lim = step_decode_limit(steps, i);
            if (fcs == ZH_ZSTD_CONTENTSIZE_UNKNOWN || lim < 0 || fcs > (unsigned long long)lim)
                return ZH_FALLBACK;
            expect = (int64_t)fcs;
        } else if (expect < 0) {
            return ZH_FALLBACK; /* gzip or zlib of unknown size */
        }
        /* the size expected comes from the metadata (the chunk's shape): before allocating
         * it, check that these n bytes can decode to that many at all, so damaged metadata
         * never makes a huge allocation for a small chunk (zstd: a frame declaring its
         * size may not declare more; a block of at most 128 KiB takes at least 4 bytes;
         * deflate expands at most 1032:1) */
        if (s->kind == ZH_BB_ZSTD || s->kind == ZH_BB_GZIP || s->kind == ZH_BB_ZLIB) {
            int zstd = s->kind == ZH_BB_ZSTD;
            if (zstd) {
                unsigned long long fcs = ZSTD_getFrameContentSize(cur, n);
                if (fcs == ZH_ZSTD_CONTENTSIZE_ERROR) {
                    snprintf(err, errlen, "zstd: cannot decode: not a zstd frame");
                    return ZH_ERR_CORRUPT;
                }
                /* (less may be the first of several frames) */
                if (fcs != ZH_ZSTD_CONTENTSIZE_UNKNOWN && fcs > (unsigned long long)expect) {
                    snprintf(err, errlen, "zstd: the frame declares %llu bytes, expected %lld",
                             fcs, (long long)expect);
                    return ZH_ERR_CORRUPT;
                }
            }
            double most = zstd ? ((double)n / 4 + 1) * 131072.0 : (double)n * 1032.0 + 1024.0;
            if ((double)expect > most) {
                snprintf(err, errlen, "%s: %zu bytes cannot decode to the %lld bytes expected",
                         zstd ? "zstd" : s->kind == ZH_BB_GZIP ? "gzip" : "zlib", n,
                         (long long)expect);
                return ZH_ERR_CORRUPT;
            }
        }
        /* where the output goes */
        char *dst;
        int dst_buf = -1;
        if (i == 0 && final_dst && (size_t)expect == final_cap) {
            dst = final_dst;
        } else {
            dst_buf = (cur_buf == 1) ? 2 : 1;
            dst = zh_scratch(w, dst_buf, (size_t)expect);
            if (!dst) return ZH_ERR_NOMEM;
        }
        size_t produced = 0;
        if (s->kind == ZH_BB_ZSTD) {
            if (!w->zd && !(w->zd = ZSTD_createDCtx())) return ZH_ERR_NOMEM;
            size_t r = ZSTD_decompressDCtx(w->zd, dst, (size_t)expect, cur, n);
            if (ZSTD_isError(r)) {
                snprintf(err, errlen, "zstd: cannot decode: %s", ZSTD_getErrorName(r));
                return ZH_ERR_CORRUPT;
            }
            produced = r;
        } else if (s->kind == ZH_BB_GZIP || s->kind == ZH_BB_ZLIB) {
            /* gzip: 32 + 15 accepts a gzip or a zlib header, as the Python codec does */
            int wbits = s->kind == ZH_BB_GZIP ? 32 + MAX_WBITS : MAX_WBITS;
            int rc = zh_inflate(wbits, cur, n, dst, (size_t)expect, &produced, err, errlen);
            if (rc != ZH_OK) return rc;
        } else if (s->kind == ZH_BB_BLOSC) {
            if (expect > 0) {
                int fit = blosc_decode_fit(cur);
                if (fit == BLOSC_FIT_C1) return ZH_FALLBACK; /* the Python codec's */
                if (zh_blosc1_runs(cur, n, 0, expect, NULL, err, errlen)) return ZH_ERR_CORRUPT;
                blosc2_context *bd = blosc_dctx(w);
                if (!bd) return ZH_ERR_NOMEM;
                int r = blosc2_decompress_ctx(bd, cur, (int32_t)n, dst, (int32_t)expect);
                blosc_dctx_done(w, cur, r != (int)expect);
                if (r < 0) {
                    snprintf(err, errlen, "blosc: cannot decode (error %d)", r);
                    return ZH_ERR_CORRUPT;
                }
                produced = (size_t)r;
            }
        } else {
            return ZH_FALLBACK;
        }
        if ((int64_t)produced != expect) {
            snprintf(err, errlen, "%s: decoded %zu bytes, expected %lld",
                     s->kind == ZH_BB_ZSTD ? "zstd" : s->kind == ZH_BB_GZIP ? "gzip"
                     : s->kind == ZH_BB_ZLIB ? "zlib" : "blosc",
                     produced, (long long)expect);
            return ZH_ERR_CORRUPT;
        }
        cur = dst;
        cur_buf = dst_buf;
        n = produced;
    }
    *out = cur;
    *out_n = n;
    return ZH_OK;
}

int zh_blosc_span_add(const char *buf, int64_t nblocks, int64_t n, int64_t k0, int64_t k1,
                      int64_t *first, int64_t *last) {
    const unsigned char *bst = (const unsigned char *)buf + 16;
    int64_t table_end = 16 + 4 * nblocks;
    for (int64_t k = k0 < 0 ? 0 : k0; k <= k1 && k < nblocks; k++) {
        int64_t start = (int32_t)load_le32(bst + 4 * k);
        if (start < table_end || start >= n) return -1;
        if (start < *first) *first = start;
        if (start > *last) *last = start;
    }
    return 0;
}

int64_t zh_blosc_next_start(const char *buf, int64_t nblocks, int64_t n, int64_t last) {
    const unsigned char *bst = (const unsigned char *)buf + 16;
    int64_t end = n;
    for (int64_t j = 0; j < nblocks; j++) { /* blocks need not be in order */
        int64_t o = (int32_t)load_le32(bst + 4 * j);
        if (o > last && o < end) end = o;
    }
    return end;
}

int zh_blosc_starts_sorted(const char *buf, int64_t nblocks, int64_t n) {
    const unsigned char *bst = (const unsigned char *)buf + 16;
    int64_t prev = 16 + 4 * nblocks - 1;
    for (int64_t k = 0; k < nblocks; k++) {
        int64_t o = (int32_t)load_le32(bst + 4 * k);
        if (o <= prev) return 0;
        prev = o;
    }
    return prev < n;
}

void zh_blosc_set_cbytes(char *buf, int64_t end) {
    unsigned char *cb = (unsigned char *)buf + 12;
    cb[0] = (unsigned char)end;
    cb[1] = (unsigned char)(end >> 8);
    cb[2] = (unsigned char)(end >> 16);
    cb[3] = (unsigned char)(end >> 24);
}

int64_t zh_blosc_span_end(char *buf, int64_t nblocks, int64_t n, int64_t last) {
    int64_t end = zh_blosc_next_start(buf, nblocks, n, last);
    zh_blosc_set_cbytes(buf, end);
    return end;
}

int zh_blosc_range(zh_wctx *w, const char *src, size_t n, int64_t expect, int64_t lo,
                   int64_t hi, const char **base, char *err, size_t errlen) {
    int32_t nbytes = 0, cbytes = 0, block = 0;
    if (n < BLOSC_MIN_HEADER_LENGTH || expect <= 0 || lo < 0 || hi > expect || lo >= hi)
        return ZH_FALLBACK;
    unsigned char flags = (unsigned char)src[2];
    if ((flags & 0x05) == 0x05 && n < BLOSC_EXTENDED_HEADER_LENGTH) return ZH_FALLBACK;
    if (blosc2_cbuffer_sizes(src, &nbytes, &cbytes, &block) < 0 || (size_t)cbytes > n ||
        cbytes < BLOSC_MIN_HEADER_LENGTH || nbytes != expect) {
        snprintf(err, errlen, "blosc: invalid header");
        return ZH_ERR_CORRUPT;
    }
    /* a memcpyed chunk is its bytes right after the header and nothing else: c-blosc1 and
     * c-blosc2 refuse it whole otherwise, but c-blosc2's getitem does not check, and a
     * damaged flags byte made it return a compressed stream's bytes as values */
    if ((flags & 0x02) &&
        (int64_t)cbytes != (int64_t)nbytes + ((flags & 0x05) == 0x05
                                                  ? BLOSC_EXTENDED_HEADER_LENGTH
                                                  : BLOSC_MIN_HEADER_LENGTH)) {
        snprintf(err, errlen, "blosc: invalid header (a memcpyed chunk of %d bytes holding %d)",
                 (int)cbytes, (int)nbytes);
        return ZH_ERR_CORRUPT;
    }
    int64_t ts = (unsigned char)src[3];
    if (ts <= 0 || expect % ts != 0 || expect / ts > INT32_MAX) return ZH_FALLBACK;
    /* blocks of whole elements only (c-blosc1 always writes them): c-blosc2's getitem
     * over blocks that split an element wrote past its destination (heap corruption) */
    if (block <= 0 || block % ts != 0) return ZH_FALLBACK;
    /* blosc2-format chunks and c-blosc1 headers claiming a delta filter (0x08: no
     * c-blosc1 writer sets it) are decoded whole: the item-range decode of a delta block
     * takes its reference from the start of its own destination, not of the chunk */
    if ((flags & 0x05) == 0x05 || (flags & 0x08)) return ZH_FALLBACK;
    int fit = blosc_decode_fit(src);
    if (fit == BLOSC_FIT_C1) return ZH_FALLBACK; /* the whole-chunk decode hands it on */
    if (zh_blosc1_runs(src, n, lo, hi, NULL, err, errlen)) return ZH_ERR_CORRUPT;
    int64_t start = lo / ts, end = (hi + ts - 1) / ts;
    char *dst = zh_scratch(w, 1, (size_t)((end - start) * ts));
    if (!dst) return ZH_ERR_NOMEM;
    blosc2_context *bd = blosc_dctx(w);
    if (!bd) return ZH_ERR_NOMEM;
    /* c-blosc2's getitem decodes a block straight into the destination's start when the
     * block begins at or after the request's start and its size equals the request's
     * byte count: right for a request of exactly one whole block, but for a request
     * that starts inside a block and is as long as a block (or as the leftover block)
     * the next block overwrote the first bytes (silently wrong values).  Such requests
     * are decoded one block at a time. */
    int64_t want = (end - start) * ts, left = nbytes % block;
    int split = (start * ts) % block != 0 &&
                (want == block || (left && want == left));
    int64_t a = start;
    while (a < end) {
        int64_t b = split ? ((a * ts) / block + 1) * block / ts : end;
        if (b > end) b = end;
        /* no further than the header's compressed size (a sparse read's span: above) */
        int r = blosc2_getitem_ctx(bd, src, cbytes, (int)a, (int)(b - a),
                                   dst + (a - start) * ts, (int32_t)((b - a) * ts));
        blosc_dctx_done(w, src, r != (b - a) * ts);
        if (r != (b - a) * ts) {
            snprintf(err, errlen, "blosc: cannot decode (error %d)", r);
            return ZH_ERR_CORRUPT;
        }
        a = b;
        if (a < end && !(bd = blosc_dctx(w))) return ZH_ERR_NOMEM;
    }
    *base = dst - start * ts;
    return ZH_OK;
}

int zh_blosc_blocks(zh_wctx *w, const char *src, size_t n, int64_t expect,
                    const uint8_t *keep, int64_t nblocks, char *dst, char *err, size_t errlen) {
    int32_t nbytes = 0, cbytes = 0, block = 0;
    if (n < BLOSC_MIN_HEADER_LENGTH || expect <= 0 || nblocks <= 0 || nblocks > INT32_MAX)
        return ZH_FALLBACK;
    unsigned char flags = (unsigned char)src[2];
    /* blosc2-format chunks, memcpyed ones and delta (whose reference is block 0, maybe
     * skipped) are decoded whole, as in zh_blosc_range */
    if ((flags & 0x05) == 0x05 || (flags & 0x08) || (flags & 0x02)) return ZH_FALLBACK;
    if (blosc2_cbuffer_sizes(src, &nbytes, &cbytes, &block) < 0 || (size_t)cbytes > n ||
        cbytes < BLOSC_MIN_HEADER_LENGTH || nbytes != expect) {
        snprintf(err, errlen, "blosc: invalid header");
        return ZH_ERR_CORRUPT;
    }
    int64_t ts = (unsigned char)src[3];
    if (ts <= 0 || block <= 0 || block % ts != 0 || (nbytes + (int64_t)block - 1) / block != nblocks)
        return ZH_FALLBACK;
    if (blosc_decode_fit(src) == BLOSC_FIT_C1) return ZH_FALLBACK;
    if (zh_blosc1_runs(src, n, 0, expect, keep, err, errlen)) return ZH_ERR_CORRUPT;
    /* (c-blosc2 takes the mask as bool: true = skip this block) */
    bool *skip = (bool *)malloc((size_t)nblocks * sizeof(bool));
    if (!skip) return ZH_ERR_NOMEM;
    for (int64_t k = 0; k < nblocks; k++) skip[k] = !keep[k];
    blosc2_context *bd = blosc_dctx(w);
    if (!bd) {
        free(skip);
        return ZH_ERR_NOMEM;
    }
    int r = blosc2_set_maskout(bd, skip, (int)nblocks);
    if (r >= 0) r = blosc2_decompress_ctx(bd, src, cbytes, dst, (int32_t)expect);
    /* a context left with a mask (a failed call) is discarded with the failure */
    blosc_dctx_done(w, src, r != (int)expect);
    free(skip);
    if (r != (int)expect) {
        snprintf(err, errlen, "blosc: cannot decode (error %d)", r);
        return ZH_ERR_CORRUPT;
    }
    return ZH_OK;
}

/* ---------------------------------------------------------------- encode */

/* Worst-case output of step s for n input bytes. */
static size_t step_bound(const zh_bb *s, size_t n) {
    if (s->kind == ZH_BB_CRC32C) return n + 4;
    if (s->kind == ZH_BB_ZSTD) return ZSTD_compressBound(n);
    if (s->kind == ZH_BB_GZIP || s->kind == ZH_BB_ZLIB)
        return n + n / 8 + 1024; /* static Huffman may expand 12.5 % */
    return n + BLOSC_MIN_HEADER_LENGTH + 16;
}

size_t zh_encode_bound(const zh_bb *steps, int nsteps, size_t n) {
    for (int i = 0; i < nsteps; i++) n = step_bound(&steps[i], n);
    return n;
}

int zh_encode_bytes(zh_wctx *w, const zh_bb *steps, int nsteps, const char *src, size_t n,
                    char *final_dst, size_t final_cap, const char **out, size_t *out_n,
                    char *err, size_t errlen) {
    const char *cur = src;
    int cur_buf = -1;
    for (int i = 0; i < nsteps; i++) {
        const zh_bb *s = &steps[i];
        int dst_buf = (cur_buf == 1) ? 2 : 1;
        size_t cap = step_bound(s, n);
        char *dst;
        if (final_dst && i == nsteps - 1 && final_cap >= cap) {
            dst = final_dst;
            cap = final_cap;
        } else if (!(dst = zh_scratch(w, dst_buf, cap))) {
            return ZH_ERR_NOMEM;
        }
        size_t produced = 0;
        if (s->kind == ZH_BB_CRC32C) {
            memcpy(dst, cur, n);
            zh_put_crc32c((unsigned char *)dst + n, cur, n);
            produced = n + 4;
        } else if (s->kind == ZH_BB_ZSTD) {
            if (!w->zc && !(w->zc = ZSTD_createCCtx())) return ZH_ERR_NOMEM;
            ZSTD_CCtx_reset(w->zc, ZH_ZSTD_reset_session_and_parameters);
            ZSTD_CCtx_setParameter(w->zc, ZH_ZSTD_c_compressionLevel, s->level);
            ZSTD_CCtx_setParameter(w->zc, ZH_ZSTD_c_checksumFlag, s->checksum ? 1 : 0);
            size_t r = ZSTD_compress2(w->zc, dst, cap, cur, n);
            if (ZSTD_isError(r)) {
                snprintf(err, errlen, "zstd: compression failed: %s", ZSTD_getErrorName(r));
                return ZH_ERR_CODEC;
            }
            produced = r;
        } else if (s->kind == ZH_BB_GZIP || s->kind == ZH_BB_ZLIB) {
            if (n > UINT32_MAX / 2) return ZH_FALLBACK;
            int wbits = s->kind == ZH_BB_GZIP ? 16 + MAX_WBITS : MAX_WBITS;
            if (zh_deflate(wbits, s->level, cur, n, dst, cap, &produced) != ZH_OK) {
                snprintf(err, errlen, "%s: compression failed", s->kind == ZH_BB_GZIP ? "gzip" : "zlib");
                return ZH_ERR_CODEC;
            }
        } else if (s->kind == ZH_BB_BLOSC) {
            if (n > (size_t)INT32_MAX - 64) return ZH_FALLBACK;
            int64_t r = 0;
            /* negative blocksize: zarrhpc's own writer, -blocksize-byte blocks (zh_blosc1.h) */
            if (s->blocksize < 0 && zh_blosc1_handles(s->cname, s->level))
                r = zh_blosc1_encode(s->cname, s->level, s->shuffle,
                                     s->typesize > 0 ? s->typesize : 1, -(int64_t)s->blocksize,
                                     cur, n, dst, cap);
            if (r < 0) {
                snprintf(err, errlen, "blosc: compression failed (error %d)", (int)r);
                return r == -2 ? ZH_ERR_NOMEM : ZH_ERR_CODEC;
            }
            if (r == 0 && !g_blosc1_compress) return ZH_FALLBACK;
            if (r == 0) r = g_blosc1_compress(s->level, s->shuffle, (size_t)(s->typesize > 0 ? s->typesize : 1),
                                      n, cur, dst, cap, s->cname,
                                      (size_t)(s->blocksize < 0 ? -(int64_t)s->blocksize
                                                                : s->blocksize), 1);
            if (r <= 0) {
                snprintf(err, errlen, "blosc: compression failed (error %d)", (int)r);
                return ZH_ERR_CODEC;
            }
            produced = (size_t)r;
        } else {
            return ZH_FALLBACK;
        }
        cur = dst;
        cur_buf = dst == final_dst ? -1 : dst_buf;
        n = produced;
    }
    *out = cur;
    *out_n = n;
    return ZH_OK;
}
