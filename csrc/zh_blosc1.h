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

#endif
