/* N-dimensional strided copy and fill over byte strides, with an optional byte swap
 * of every `swap`-byte component fused into the copy.  No Python, no allocation. */
#ifndef ZH_STRIDED_H
#define ZH_STRIDED_H

#include <stdint.h>
#include "zh_status.h"

/* Copy an ndim-dimensional block of `itemsize`-byte elements from src to dst.
 * shape, dst_bstrides and src_bstrides have ndim entries (0 <= ndim <= ZH_MAX_DIMS;
 * byte strides, any sign, zero allowed).  swap: 0 or 1 = plain copy; 2, 4, 8 = reverse
 * the bytes of every swap-byte component of each element (itemsize must be a multiple
 * of swap).  ndim 0 copies one element; a zero in shape copies nothing.
 * Preconditions (not checked): both blocks lie inside their buffers; dst and src do
 * not overlap (the Cython wrapper snapshots src when they might).
 * Thread-safe, no allocation (about 2.5 KiB of stack).  Returns ZH_OK, ZH_ERR_NDIM,
 * ZH_ERR_ITEMSIZE (itemsize <= 0, bad swap) or ZH_ERR_SHAPE (negative extent, NULL
 * arrays). */
int zh_copy_strided(char *dst, const char *src, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const int64_t *src_bstrides,
                    int64_t itemsize, int swap);

/* Write the itemsize-byte pattern `value` into every element of the block (same
 * conventions and status codes as zh_copy_strided; value must not overlap dst). */
int zh_fill_strided(char *dst, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const char *value, int64_t itemsize);

#endif
