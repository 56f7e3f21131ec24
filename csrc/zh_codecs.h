/* The bytes->bytes codecs of the native engine (crc32c, zstd, gzip, blosc), run with no
 * Python and no GIL, on per-thread contexts and scratch buffers.  No Python.h. */
#ifndef ZH_CODECS_H
#define ZH_CODECS_H

#include <stddef.h>
#include <stdint.h>
#include "zh_status.h"

enum { ZH_BB_CRC32C = 1, ZH_BB_ZSTD = 2, ZH_BB_GZIP = 3, ZH_BB_BLOSC = 4, ZH_BB_ZLIB = 5 };

/* One bytes->bytes codec of a chain, with what its decode must produce. */
typedef struct {
    int kind;              /* ZH_BB_* */
    int level;             /* zstd, gzip, zlib, blosc clevel */
    int checksum;          /* zstd: write a content checksum */
    int shuffle;           /* blosc: 0, 1, 2 */
    int typesize;          /* blosc */
    int blocksize;         /* blosc */
    char cname[16];        /* blosc: lz4, lz4hc, blosclz, zstd, zlib */
    int64_t decoded_size;  /* exact size this step decodes to; -1 when not fixed */
} zh_bb;

/* Per-thread state: codec contexts and four growable scratch buffers (0: a chunk's
 * decoded bytes, 1 and 2: codec steps, 3: a file's raw bytes). */
typedef struct zh_wctx zh_wctx;

/* The calling thread's context, created on first use and freed at thread exit. */
zh_wctx *zh_wctx_get(void);

/* Scratch buffer `which` (0..3) of at least n bytes; NULL when out of memory. */
char *zh_scratch(zh_wctx *w, int which, size_t n);

/* Decode `src[0:n]` through steps[nsteps-1] .. steps[0] (chain order given, run in
 * reverse).  When `final_dst` is not NULL and the last step's output is exactly
 * `final_cap` bytes, that step writes straight into final_dst.  On ZH_OK, *out and
 * *out_n give the decoded bytes (final_dst, a scratch buffer, or src itself when every
 * step only strips a checksum).  Returns ZH_OK, ZH_ERR_CORRUPT (message in err),
 * ZH_FALLBACK (this chunk needs the Python codecs) or ZH_ERR_NOMEM. */
int zh_decode_bytes(zh_wctx *w, const zh_bb *steps, int nsteps, const char *src, size_t n,
                    char *final_dst, size_t final_cap, const char **out, size_t *out_n,
                    char *err, size_t errlen);

/* Decode only bytes [lo, hi) of a blosc chunk whose decoded size must be `expect`
 * (blosc decompresses just the blocks that hold them).  On ZH_OK, *base + lo is the
 * first wanted byte (in scratch buffer 1).  Same return codes as zh_decode_bytes. */
int zh_blosc_range(zh_wctx *w, const char *src, size_t n, int64_t expect, int64_t lo,
                   int64_t hi, const char **base, char *err, size_t errlen);

/* Decode the blocks of a blosc chunk (decoded size `expect`) whose keep[k] is set into
 * dst (expect bytes; the other blocks' bytes are left as they were): one
 * blosc2_decompress_ctx call with a mask of the blocks to skip, so the header is read
 * once and each kept block decodes straight into place.  For dense point reads (more
 * than half the blocks wanted: item-range decodes would cost a call per block).  nblocks
 * must be the chunk's block count.  ZH_FALLBACK when the chunk is not of the c-blosc1
 * kind this is safe for (the whole-chunk decode then runs); otherwise as
 * zh_decode_bytes. */
int zh_blosc_blocks(zh_wctx *w, const char *src, size_t n, int64_t expect,
                    const uint8_t *keep, int64_t nblocks, char *dst, char *err, size_t errlen);

/* Sparse reads of a c-blosc1 chunk file (16-byte header, then nblocks 32-bit block
 * offsets, both already in buf, a buffer of the file's n bytes): which bytes to read so
 * that blocks k0..k1 (of possibly several calls) decode from them and from nothing else.
 * zh_blosc_span_add widens [*first, *last] (start them at INT64_MAX, -1) by those blocks'
 * offsets; -1 when one lies outside the chunk (corrupt: read it whole).  zh_blosc_span_end
 * gives the end of the span to read, [*first, end): the next block offset after *last, or
 * n; and writes it into buf's header as the chunk's compressed size, so that a block whose
 * streams claim more bytes (a corrupt offset table) fails in blosc, which reads a block
 * forward from its offset and never past that size, instead of decoding bytes of buf that
 * were not read from this file. */
int zh_blosc_span_add(const char *buf, int64_t nblocks, int64_t n, int64_t k0, int64_t k1,
                      int64_t *first, int64_t *last);
int64_t zh_blosc_span_end(char *buf, int64_t nblocks, int64_t n, int64_t last);
/* zh_blosc_span_end's two halves, for a caller that reads several spans and decodes each
 * from its own (zh_select.c): the end alone, and the header's size set to it. */
int64_t zh_blosc_next_start(const char *buf, int64_t nblocks, int64_t n, int64_t last);
/* 1 when the nblocks block offsets in buf (a chunk of n bytes) are strictly increasing and
 * all lie in [end of the offset table, n): then the blocks k0..k1 span [offset k0, offset
 * k1 + 1 (or n)), which zh_blosc_span_add and zh_blosc_next_start give by a scan of the
 * table each (every writer we know stores blocks in order; 8 ranges of a 128-block chunk
 * scanned it 8 times, ~1 us of a W4 block read). */
int zh_blosc_starts_sorted(const char *buf, int64_t nblocks, int64_t n);
void zh_blosc_set_cbytes(char *buf, int64_t end);

/* Encode `src[0:n]` through steps[0] .. steps[nsteps-1].  *out points into scratch
 * buffer 1 or 2 (or is src when nsteps == 0), or is final_dst when that is not NULL and
 * final_cap is at least zh_encode_bound(): the last step then writes straight into it.
 * Returns ZH_OK, ZH_ERR_CODEC, ZH_ERR_NOMEM or ZH_FALLBACK (the Python codecs must). */
int zh_encode_bytes(zh_wctx *w, const zh_bb *steps, int nsteps, const char *src, size_t n,
                    char *final_dst, size_t final_cap, const char **out, size_t *out_n,
                    char *err, size_t errlen);

/* The most bytes zh_encode_bytes can produce from n input bytes. */
size_t zh_encode_bound(const zh_bb *steps, int nsteps, size_t n);

/* CRC-32C (Castagnoli), hardware instruction when the CPU has SSE4.2. */
uint32_t zh_crc32c(uint32_t crc, const void *data, size_t n);

/* The crc32c of data[0:n], stored little-endian at dst (the crc32c codec's trailer). */
void zh_put_crc32c(unsigned char *dst, const void *data, size_t n);

/* c-blosc1's blosc_compress_ctx, looked up at run time (numcodecs' build of c-blosc1);
 * blosc encoding is only possible once it is set.  c-blosc2 writes a chunk format that
 * c-blosc1 readers (zarr-python, tensorstore) cannot read, so it is not used to encode. */
typedef int (*zh_blosc1_compress_fn)(int clevel, int doshuffle, size_t typesize,
                                     size_t nbytes, const void *src, void *dest,
                                     size_t destsize, const char *compressor,
                                     size_t blocksize, int numinternalthreads);
void zh_set_blosc1_compress(zh_blosc1_compress_fn fn);
int zh_have_blosc1_compress(void);

#endif
