/* zarrhpc's own writer of c-blosc1 chunks (lz4 and lz4hc), with small non-split blocks.
 * See zh_blosc1.c.  No Python.h. */
#ifndef ZH_BLOSC1_H
#define ZH_BLOSC1_H

#include <stddef.h>
#include <stdint.h>

/* 1 when zh_blosc1_encode writes chunks for this compressor name and level (lz4 and
 * lz4hc, clevel 1-9); every other case goes to c-blosc1. */
int zh_blosc1_handles(const char *cname, int clevel);

/* Compress src[0:n] into one c-blosc1 chunk of non-split blocks of about `block_bytes`
 * bytes.  shuffle: 0 none, 1 byte, 2 bit; typesize 1-255.  dst must hold n + 16 bytes
 * (a chunk that does not compress is stored whole after the header, as c-blosc1 does).
 * Returns the chunk's size (> 0); 0 when this chunk must go to c-blosc1 (a bit shuffle
 * whose blocks are not whole groups of 8 elements, a typesize over 255); < 0 on bad
 * arguments or no memory. */
int64_t zh_blosc1_encode(const char *cname, int clevel, int shuffle, int typesize,
                         int64_t block_bytes, const void *src, size_t n, void *dst, size_t cap);

/* Decode bytes [lo, hi) of the c-blosc1 chunk src[0:n] (decoded size `expect`) into
 * dst + lo, when the chunk has the form zh_blosc1_encode writes (lz4, one stream per
 * block, byte shuffle or none): each block holding them is decompressed whole into tmp
 * (tmp_cap bytes, at least the block size) and only the wanted elements are un-shuffled
 * into place (whole elements: bytes of dst around the range may be written too, with
 * their decoded values).  No block is read past the header's compressed size (callers
 * of sparse reads set it to the end of what they read).  Returns 0 when done, 1 when
 * the chunk is not of that form and -1 when it is damaged: in both cases nothing is
 * promised about dst and the caller decodes the range the general way (which names the
 * error). */
int zh_blosc1_decode_range(const char *src, size_t n, int64_t expect, int64_t lo, int64_t hi,
                           char *dst, char *tmp, int64_t tmp_cap);

/* 1 (message in err) when a c-blosc1 chunk (16-byte header) of one stream per block has a
 * block holding decoded bytes [lo, hi) (and kept: keep[k], when keep is not NULL) whose
 * stream size is negative.  c-blosc2 reads such a block as a run of one byte value (its
 * own format's form) where c-blosc1 refuses the chunk: a damaged c-blosc1 chunk read as
 * other values.  0 otherwise (other damage is blosc's to find). */
int zh_blosc1_runs(const char *src, size_t n, int64_t lo, int64_t hi, const uint8_t *keep,
                   char *err, size_t errlen);

#endif
