/* N-dimensional strided copy and fill over byte strides, with an optional byte swap
 * of every `swap`-byte component fused into the copy.  No Python, no allocation. */
#ifndef ZH_STRIDED_H
#define ZH_STRIDED_H

#include <stdint.h>
#include "zh_status.h"

/* Copy an ndim-dimensional block of `itemsize`-byte elements from src to dst.
 * shape, dst_bstrides and src_bstrides have ndim entries (byte strides, may be
 * negative or zero in src).  swap: 0 or 1 = plain copy; 2, 4, 8 = reverse the bytes of
 * every swap-byte component of each element (itemsize must be a multiple of swap).
 * dst and src must not overlap.  Returns ZH_OK or a ZH_ERR_* code. */
int zh_copy_strided(char *dst, const char *src, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const int64_t *src_bstrides,
                    int64_t itemsize, int swap);

/* Write the itemsize-byte pattern `value` into every element of the block. */
int zh_fill_strided(char *dst, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const char *value, int64_t itemsize);

#endif
