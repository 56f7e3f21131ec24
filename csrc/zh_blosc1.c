/* zarrhpc's own writer of c-blosc1 chunks for lz4 and lz4hc, and a reader of a byte
 * range of such chunks (non-split lz4 blocks).  See zh_blosc1.h.
 *
 * Why: c-blosc1 (numcodecs) splits each block into `typesize` streams for lz4 and
 * refuses split blocks under 64 KiB, and only a process-wide switch (which would change
 * every other blosc user in the process) turns splitting off.  A reader that wants a few
 * elements decodes whole blocks, so small blocks make small reads cheap.  This writer
 * produces the same chunk format with the "don't split" flag (0x10): one lz4 stream per
 * block, blocks of the size the caller picks.  c-blosc1 (zarr-python, numcodecs,
 * tensorstore) and c-blosc2 read these chunks like any other.
 *
 * The format (c-blosc's README_CHUNK_FORMAT.rst), all integers little-endian:
 *   header (16 bytes): version 2, versionlz 1 (lz4), flags, typesize (uint8),
 *     nbytes, blocksize, cbytes (int32);
 *   flags: 0x01 byte shuffle, 0x02 memcpyed (the data follows the header as it is),
 *     0x04 bit shuffle, 0x10 don't split, bits 5-7 the compressor format (1: lz4, which
 *     lz4hc also writes);
 *   bstarts: one int32 per block, the block's offset from the chunk's start;
 *   each block: int32 csize, then csize bytes: one lz4 stream, or the block's bytes as
 *     they are when csize equals the block's size (a block that does not compress).
 * The last block holds the leftover (nbytes % blocksize) when there is one.  Each block
 * is shuffled on its own (its typesize-multiple part; the remaining bytes stay in place).
 *
 * lz4, lz4hc and the shuffles come from the static libblosc2 the engine links (it
 * bundles lz4); their headers are not shipped, so the entry points are declared here. */
#include "zh_blosc1.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LZ4_compress_fast_extState(void *state, const char *src, char *dst, int srcSize,
                               int dstCapacity, int acceleration);
int LZ4_sizeofState(void);
int LZ4_compress_HC_extStateHC(void *state, const char *src, char *dst, int srcSize,
                               int dstCapacity, int compressionLevel);
int LZ4_sizeofStateHC(void);
int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity);
int32_t blosc2_shuffle(int32_t typesize, int32_t blocksize, const void *src, void *dest);
int32_t blosc2_bitshuffle(int32_t typesize, int32_t blocksize, const void *src, void *dest);

enum {
    HEADER = 16,
    MIN_BUFFERSIZE = 128, /* smaller chunks are stored memcpyed, as c-blosc1 does */
    F_SHUFFLE = 0x01,
    F_MEMCPYED = 0x02,
    F_BITSHUFFLE = 0x04,
    F_DONT_SPLIT = 0x10,
    LZ4_FORMAT = 1,
};

/* per-thread lz4 states and the shuffle buffer, freed at thread exit */
typedef struct {
    void *lz4;
    void *lz4hc;
    char *tmp;
    size_t tmp_cap;
} bl1_tls;

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void tls_free(void *p) {
    bl1_tls *t = (bl1_tls *)p;
    if (!t) return;
    free(t->lz4);
    free(t->lz4hc);
    free(t->tmp);
    free(t);
}

static void make_key(void) { pthread_key_create(&g_key, tls_free); }

static bl1_tls *tls_get(void) {
    pthread_once(&g_once, make_key);
    bl1_tls *t = (bl1_tls *)pthread_getspecific(g_key);
    if (!t) {
        t = (bl1_tls *)calloc(1, sizeof(*t));
        if (t && pthread_setspecific(g_key, t) != 0) {
            free(t);
            t = NULL;
        }
    }
    return t;
}

static void put_le32(unsigned char *p, uint32_t v) {
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = v >> 24;
}

int zh_blosc1_handles(const char *cname, int clevel) {
    return clevel >= 1 && clevel <= 9 && (strcmp(cname, "lz4") == 0 || strcmp(cname, "lz4hc") == 0);
}

static int64_t store_memcpyed(unsigned char *d, const void *src, size_t n) {
    d[2] |= F_MEMCPYED;
    put_le32(d + 12, (uint32_t)(n + HEADER));
    if (n) memcpy(d + HEADER, src, n);
    return (int64_t)(n + HEADER);
}

int64_t zh_blosc1_encode(const char *cname, int clevel, int shuffle, int typesize,
                         int64_t block_bytes, const void *src, size_t n, void *dst, size_t cap) {
    if (typesize > 255) return 0; /* c-blosc1 stores such chunks with typesize 1 */
    if (!zh_blosc1_handles(cname, clevel) || typesize < 1 || shuffle < 0 ||
        shuffle > 2 || block_bytes < 1 || n > (size_t)INT32_MAX - HEADER || cap < n + HEADER)
        return -1;
    int hc = strcmp(cname, "lz4hc") == 0;
    /* the block size: whole elements (whole groups of 8 for the bit shuffle), at most n;
     * c-blosc1 writes blocks of whole elements whatever the shuffle, and readers' item
     * ranges rely on it */
    int64_t unit = shuffle == 2 ? 8 * (int64_t)typesize : typesize;
    int64_t bs = block_bytes < (int64_t)n ? block_bytes : (int64_t)n;
    if (bs >= unit) bs -= bs % unit;
    if (bs < 1) bs = 1;
    int64_t left = (int64_t)n % bs;
    if (shuffle == 2 && n >= MIN_BUFFERSIZE && (bs % unit != 0 || left % unit != 0))
        return 0; /* c-blosc1 and c-blosc2 treat partial bit-shuffle groups differently */
    int64_t nblocks = (int64_t)n / bs + (left > 0);

    unsigned char *d = (unsigned char *)dst;
    d[0] = 2; /* c-blosc1's format version */
    d[1] = 1; /* lz4's format version */
    d[2] = (unsigned char)(F_DONT_SPLIT | (LZ4_FORMAT << 5) |
                           (shuffle == 1 ? F_SHUFFLE : shuffle == 2 ? F_BITSHUFFLE : 0));
    d[3] = (unsigned char)typesize;
    put_le32(d + 4, (uint32_t)n);
    put_le32(d + 8, (uint32_t)(n ? bs : 1));
    if (n < MIN_BUFFERSIZE) return store_memcpyed(d, src, n);

    /* anything as large as the memcpyed chunk is stored memcpyed */
    size_t limit = n + HEADER;
    size_t pos = HEADER + 4 * (size_t)nblocks;
    if (pos >= limit) return store_memcpyed(d, src, n);
    bl1_tls *t = tls_get();
    if (!t) return -2;
    void **state = hc ? &t->lz4hc : &t->lz4;
    if (!*state && !(*state = malloc((size_t)(hc ? LZ4_sizeofStateHC() : LZ4_sizeofState()))))
        return -2;
    int filter = (shuffle == 1 && typesize > 1) || shuffle == 2;
    if (filter && t->tmp_cap < (size_t)bs) {
        free(t->tmp);
        t->tmp = (char *)malloc((size_t)bs);
        t->tmp_cap = t->tmp ? (size_t)bs : 0;
        if (!t->tmp) return -2;
    }
    const char *s = (const char *)src;
    for (int64_t k = 0; k < nblocks; k++) {
        int32_t size = (int32_t)(k == nblocks - 1 && left ? left : bs);
        const char *in = s + k * bs;
        if (filter && size >= typesize) {
            int32_t r = shuffle == 1 ? blosc2_shuffle(typesize, size, in, t->tmp)
                                     : blosc2_bitshuffle(typesize, size, in, t->tmp);
            if (r < 0) return 0; /* a case the shuffle refuses: c-blosc1 writes it */
            in = t->tmp;
        }
        if (pos + 4 >= limit) return store_memcpyed(d, src, n);
        put_le32(d + HEADER + 4 * k, (uint32_t)pos);
        /* a stream must be shorter than the block: csize == size means "stored as is" */
        size_t room = limit - pos - 4;
        int maxout = (int)((size_t)(size - 1) < room ? (size_t)(size - 1) : room);
        int c = 0;
        if (maxout > 0)
            c = hc ? LZ4_compress_HC_extStateHC(*state, in, (char *)d + pos + 4, size, maxout,
                                                clevel)
                   : LZ4_compress_fast_extState(*state, in, (char *)d + pos + 4, size, maxout,
                                                10 - clevel);
        if (c <= 0) { /* does not compress (or does not fit): the block as it is */
            if ((size_t)size > room) return store_memcpyed(d, src, n);
            memcpy(d + pos + 4, in, (size_t)size);
            c = size;
        }
        put_le32(d + pos, (uint32_t)c);
        pos += 4 + (size_t)c;
    }
    if (pos >= limit) return store_memcpyed(d, src, n);
    put_le32(d + 12, (uint32_t)pos);
    return (int64_t)pos;
}

/* ---------------------------------------------------------------- reading a range */

static int64_t get_le32(const unsigned char *p) {
    return (int64_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                     ((uint32_t)p[3] << 24));
}

/* Un-shuffle elements [ea, eb) of a byte-shuffled block of P elements of ts bytes into
 * out (element ea first): byte j of element e lies at blk[j * P + e]. */
static void gather_unshuffle(char *out, const char *blk, int64_t P, int ts, int64_t ea,
                             int64_t eb) {
    if (ts == 4) {
        const char *b0 = blk + ea, *b1 = b0 + P, *b2 = b1 + P, *b3 = b2 + P;
        for (int64_t e = 0; e < eb - ea; e++) {
            out[4 * e] = b0[e];
            out[4 * e + 1] = b1[e];
            out[4 * e + 2] = b2[e];
            out[4 * e + 3] = b3[e];
        }
        return;
    }
    if (ts == 8) {
        for (int64_t e = ea; e < eb; e++) {
            char *o = out + 8 * (e - ea);
            for (int j = 0; j < 8; j++) o[j] = blk[j * P + e];
        }
        return;
    }
    for (int64_t e = ea; e < eb; e++)
        for (int j = 0; j < ts; j++) out[(e - ea) * ts + j] = blk[j * P + e];
}

int zh_blosc1_decode_range(const char *src, size_t n, int64_t expect, int64_t lo, int64_t hi,
                           char *dst, char *tmp, int64_t tmp_cap) {
    const unsigned char *h = (const unsigned char *)src;
    if (n < HEADER || n > (size_t)INT32_MAX || lo < 0 || hi > expect || lo >= hi) return 1;
    int flags = h[2], ts = h[3];
    int64_t nbytes = get_le32(h + 4), bs = get_le32(h + 8), cbytes = get_le32(h + 12);
    /* only the form zh_blosc1_encode writes: lz4 (lz4hc writes the same), one stream
     * per block (the don't-split flag, or one-byte elements), byte shuffle or none */
    if (h[0] == 0 || h[0] > 4 || (flags >> 5) != LZ4_FORMAT ||
        (flags & (F_MEMCPYED | F_BITSHUFFLE | 0x08)) != 0 ||
        (!(flags & F_DONT_SPLIT) && ts != 1))
        return 1;
    if (ts < 1 || nbytes != expect || nbytes % ts != 0 || bs <= 0 || bs % ts != 0 ||
        bs > tmp_cap || cbytes < HEADER || cbytes > (int64_t)n)
        return 1;
    int64_t nblocks = (nbytes + bs - 1) / bs;
    int64_t table_end = HEADER + 4 * nblocks;
    if (table_end > cbytes) return -1;
    int shuffled = (flags & F_SHUFFLE) && ts > 1;
    for (int64_t k = lo / bs; k <= (hi - 1) / bs; k++) {
        int64_t first = k * bs;
        int64_t bsz = nbytes - first < bs ? nbytes - first : bs;
        int64_t off = get_le32(h + HEADER + 4 * k);
        if (off < table_end || off + 4 > cbytes) return -1;
        int64_t cs = (int32_t)get_le32(h + off); /* signed: blosc2's special runs are < 0 */
        if (cs <= 0 || cs > cbytes - off - 4) return -1;
        const char *blk = src + off + 4;
        if (cs != bsz) { /* a stored block (cs == bsz) is its bytes as they are */
            /* the whole block: a truncated or damaged stream fails as it does in blosc */
            if (LZ4_decompress_safe(blk, tmp, (int)cs, (int)bsz) != bsz) return -1;
            blk = tmp;
        }
        int64_t a = (lo > first ? lo : first) - first;
        int64_t b = (hi < first + bsz ? hi : first + bsz) - first;
        if (!shuffled) {
            memcpy(dst + first + a, blk + a, (size_t)(b - a));
        } else {
            int64_t ea = a / ts, eb = (b + ts - 1) / ts;
            gather_unshuffle(dst + first + ea * ts, blk, bsz / ts, ts, ea, eb);
        }
    }
    return 0;
}

int zh_blosc1_runs(const char *src, size_t n, int64_t lo, int64_t hi, const uint8_t *keep,
                   char *err, size_t errlen) {
    const unsigned char *h = (const unsigned char *)src;
    if (n < HEADER) return 0;
    int flags = h[2], ts = h[3];
    if ((flags & 0x05) == 0x05 || (flags & F_MEMCPYED) || (!(flags & F_DONT_SPLIT) && ts != 1))
        return 0; /* blosc2's own format (runs are valid there), or not one stream a block */
    int64_t nbytes = get_le32(h + 4), bs = get_le32(h + 8), cbytes = get_le32(h + 12);
    if (nbytes <= 0 || bs <= 0 || cbytes > (int64_t)n || lo < 0 || hi > nbytes || lo >= hi)
        return 0;
    int64_t nblocks = (nbytes + bs - 1) / bs, table_end = HEADER + 4 * nblocks;
    if (table_end > cbytes) return 0;
    for (int64_t k = lo / bs; k <= (hi - 1) / bs; k++) {
        if (keep && !keep[k]) continue;
        int64_t off = get_le32(h + HEADER + 4 * k);
        if (off < table_end || off + 4 > cbytes) continue; /* blosc refuses it itself */
        if ((int32_t)get_le32(h + off) < 0) {
            snprintf(err, errlen, "blosc: block %lld: a stream of negative size (c-blosc2's "
                     "run of one value, not in c-blosc1 chunks)", (long long)k);
            return 1;
        }
    }
    return 0;
}
