/* gzip and zlib streams of the native engine's codecs (csrc/zh_codecs.c), through
 * zlib-ng (from the static libblosc2) when its self-test at first use passes, else the
 * system zlib.  No Python.h. */
#ifndef ZH_ZLIB_H
#define ZH_ZLIB_H

#include <stddef.h>

/* Inflate a gzip (wbits 16 + 15) or zlib (wbits 15) stream src[0:n] of known decoded
 * size into dst (cap bytes): ZH_OK (*out_n set), ZH_FALLBACK (several gzip members or
 * trailing data: the Python codec decodes it), ZH_ERR_CORRUPT (message in err) or
 * ZH_ERR_NOMEM. */
int zh_inflate(int wbits, const char *src, size_t n, char *dst, size_t cap, size_t *out_n,
               char *err, size_t errlen);

/* Deflate src[0:n] at level into dst (cap bytes): ZH_OK (*out_n set), ZH_ERR_CODEC or
 * ZH_ERR_NOMEM. */
int zh_deflate(int wbits, int level, const char *src, size_t n, char *dst, size_t cap,
               size_t *out_n);

#endif
