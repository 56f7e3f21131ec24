/* zarrhpc's own writer of c-blosc1 chunks for lz4 and lz4hc.  See zh_blosc1.h.
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
#include <stdlib.h>
#include <string.h>

int LZ4_compress_fast_extState(void *state, const char *src, char *dst, int srcSize,
                               int dstCapacity, int acceleration);
int LZ4_sizeofState(void);
int LZ4_compress_HC_extStateHC(void *state, const char *src, char *dst, int srcSize,
                               int dstCapacity, int compressionLevel);
int LZ4_sizeofStateHC(void);
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
