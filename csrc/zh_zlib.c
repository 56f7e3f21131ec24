/* gzip and zlib streams for the native engine's codecs (csrc/zh_codecs.c): zlib-ng when
 * it passes its self-test, else the system zlib.  See zh_zlib.h. */
#include "zh_zlib.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "zh_codecs.h"

/* zlib-ng 2.x (native API, zng_ prefix) also comes from the static libblosc2; its level 1
 * (deflate_quick) and its inflate are several times faster than the system zlib. Its
 * header is not shipped: the stream layout below is zlib-ng's zng_stream, and a self-test
 * at first use (zlib-ng output read by zlib and back) decides whether it is used at all. */
typedef struct {
    const uint8_t *next_in;
    uint32_t avail_in;
    size_t total_in;
    uint8_t *next_out;
    uint32_t avail_out;
    size_t total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    uint32_t adler;
    unsigned long reserved;
    char pad[64]; /* room should a build's stream be larger */
} zh_zng_stream;
int32_t zng_deflateInit2(zh_zng_stream *, int32_t, int32_t, int32_t, int32_t, int32_t);
int32_t zng_deflate(zh_zng_stream *, int32_t);
int32_t zng_deflateEnd(zh_zng_stream *);
int32_t zng_inflateInit2(zh_zng_stream *, int32_t);
int32_t zng_inflate(zh_zng_stream *, int32_t);
int32_t zng_inflateEnd(zh_zng_stream *);

/* inflate a gzip (wbits 16 + 15) or zlib (wbits 15) stream of known decoded size */
static int g_zng = -1; /* 1: use zlib-ng; decided once by zng_selftest */
static pthread_once_t zng_once = PTHREAD_ONCE_INIT;

/* deflate/inflate through zlib-ng with the same contract as the zlib versions below */
static int zng_deflate_z(int wbits, int level, const char *src, size_t n, char *dst,
                         size_t cap, size_t *out_n) {
    zh_zng_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (zng_deflateInit2(&zs, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ZH_ERR_NOMEM;
    zs.next_in = (const uint8_t *)src;
    zs.avail_in = (uint32_t)n;
    zs.next_out = (uint8_t *)dst;
    zs.avail_out = (uint32_t)cap;
    int rc = zng_deflate(&zs, Z_FINISH);
    *out_n = zs.total_out;
    zng_deflateEnd(&zs);
    return rc == Z_STREAM_END ? ZH_OK : ZH_ERR_CODEC;
}

/* 0: ok (*out_n, *left set); else the zlib return code (negative) or Z_BUF_ERROR */
static int zng_inflate_z(int wbits, const char *src, size_t n, char *dst, size_t cap,
                         size_t *out_n, size_t *left, const char **msg) {
    zh_zng_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (zng_inflateInit2(&zs, wbits) != Z_OK) return Z_MEM_ERROR;
    zs.next_in = (const uint8_t *)src;
    zs.avail_in = (uint32_t)n;
    zs.next_out = (uint8_t *)dst;
    zs.avail_out = (uint32_t)cap;
    int rc = zng_inflate(&zs, Z_FINISH);
    *out_n = zs.total_out;
    *left = zs.avail_in;
    *msg = zs.msg;
    int full = zs.avail_out == 0;
    zng_inflateEnd(&zs);
    if (rc == Z_BUF_ERROR && full && *left > 0) return 1; /* more output than expected */
    return rc;
}

static void zng_selftest(void) {
    enum { N = 70000 };
    static unsigned char in[N], back[N];
    static unsigned char comp[N + N / 8 + 1024];
    for (int i = 0; i < N; i++) in[i] = (unsigned char)((i * 7) ^ (i >> 5) ^ (i % 251 == 0));
    g_zng = 0;
    for (int k = 0; k < 2; k++) {
        int wbits = k ? MAX_WBITS : 16 + MAX_WBITS;
        size_t clen = 0, blen = 0, left = 1;
        const char *msg;
        if (zng_deflate_z(wbits, 1, (const char *)in, N, (char *)comp, sizeof(comp), &clen) != ZH_OK)
            return;
        /* zlib-ng's stream must be what zlib reads */
        z_stream zs;
        memset(&zs, 0, sizeof(zs));
        if (inflateInit2(&zs, wbits) != Z_OK) return;
        zs.next_in = comp;
        zs.avail_in = (uInt)clen;
        zs.next_out = back;
        zs.avail_out = N;
        int rc = inflate(&zs, Z_FINISH);
        blen = zs.total_out;
        inflateEnd(&zs);
        if (rc != Z_STREAM_END || blen != N || memcmp(in, back, N) != 0) return;
        /* and zlib-ng reads it back */
        memset(back, 0, N);
        if (zng_inflate_z(wbits, (const char *)comp, clen, (char *)back, N, &blen, &left, &msg) !=
                Z_STREAM_END ||
            blen != N || left != 0 || memcmp(in, back, N) != 0)
            return;
    }
    g_zng = getenv("ZH_NO_ZLIBNG") == NULL;
}

int zh_inflate(int wbits, const char *src, size_t n, char *dst, size_t cap, size_t *out_n,
               char *err, size_t errlen) {
    pthread_once(&zng_once, zng_selftest);
    if (g_zng && n <= UINT32_MAX && cap <= UINT32_MAX) {
        const char *name = wbits > MAX_WBITS ? "gzip" : "zlib";
        size_t left = 0;
        const char *msg = NULL;
        int rc = zng_inflate_z(wbits, src, n, dst, cap, out_n, &left, &msg);
        if (rc == Z_STREAM_END) return left ? ZH_FALLBACK : ZH_OK;
        if (rc == 1) {
            snprintf(err, errlen, "%s: decodes to more than the expected %zu bytes", name, cap);
            return ZH_ERR_CORRUPT;
        }
        if (rc == Z_MEM_ERROR) return ZH_ERR_NOMEM;
        snprintf(err, errlen, "%s: cannot decode: %s", name, msg ? msg : "truncated or invalid data");
        return ZH_ERR_CORRUPT;
    }
    const char *name = wbits > MAX_WBITS ? "gzip" : "zlib";
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (n > UINT32_MAX || cap > UINT32_MAX) return ZH_FALLBACK;
    if (inflateInit2(&zs, wbits) != Z_OK) return ZH_ERR_NOMEM;
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)n;
    zs.next_out = (Bytef *)dst;
    zs.avail_out = (uInt)cap;
    int rc = inflate(&zs, Z_FINISH);
    size_t produced = zs.total_out;
    size_t left = zs.avail_in;
    inflateEnd(&zs);
    if (rc == Z_STREAM_END && left != 0) return ZH_FALLBACK; /* several gzip members, or trailing data */
    if (rc != Z_STREAM_END) {
        if (rc == Z_BUF_ERROR && zs.avail_out == 0 && left > 0) {
            snprintf(err, errlen, "%s: decodes to more than the expected %zu bytes", name, cap);
            return ZH_ERR_CORRUPT;
        }
        snprintf(err, errlen, "%s: cannot decode: %s", name, zs.msg ? zs.msg : "truncated or invalid data");
        return ZH_ERR_CORRUPT;
    }
    *out_n = produced;
    return ZH_OK;
}

int zh_deflate(int wbits, int level, const char *src, size_t n, char *dst, size_t cap,
               size_t *out_n) {
    pthread_once(&zng_once, zng_selftest);
    /* not level 1: zlib-ng's level 1 (deflate_quick, static Huffman codes) is much faster
     * but can expand barely compressible data where zlib's level 1 shrinks it */
    if (g_zng && level >= 2) return zng_deflate_z(wbits, level, src, n, dst, cap, out_n);
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (deflateInit2(&zs, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ZH_ERR_NOMEM;
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)n;
    zs.next_out = (Bytef *)dst;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    *out_n = zs.total_out;
    deflateEnd(&zs);
    return rc == Z_STREAM_END ? ZH_OK : ZH_ERR_CODEC;
}
