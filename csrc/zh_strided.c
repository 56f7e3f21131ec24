/* N-dimensional strided copy (with fused byte swap) and fill.  See zh_strided.h.
 *
 * Every call goes through three steps:
 * 1. simplify: drop size-1 dimensions, flip dimensions whose destination stride is
 *    negative (so the destination is walked forwards), order the dimensions by
 *    destination stride (largest first) and merge neighbours that are contiguous in
 *    BOTH buffers (outer stride == inner stride * inner extent, checked for overflow),
 *    so the innermost run is as long as possible;
 * 2. pick one run kernel for (itemsize, swap): a loop over n elements at two byte
 *    steps, specialised so that the contiguous cases are a memcpy or a loop the
 *    compiler vectorises with baseline instructions (no CPU sniffing);
 * 3. walk the outer dimensions with an odometer, calling the run kernel per run.  When
 *    the innermost destination dimension is strided in the source by a cache line or
 *    more and another dimension is nearly contiguous there (a transpose), the two are
 *    walked in square tiles so that both sides reuse the cache lines they touch.
 */
#include "zh_strided.h"

#include <stdint.h>
#include <string.h>

typedef struct {
    int ndim;
    int64_t shape[ZH_MAX_DIMS];
    int64_t ds[ZH_MAX_DIMS];
    int64_t ss[ZH_MAX_DIMS];
} zh_layout;

static inline int64_t zh_abs64(int64_t x) { return x < 0 ? -x : x; }

/* Fills L from the caller's arrays (ss may be NULL: fill, all source strides 0) and
 * moves *dst / *src to the first element visited after flipping.  L->ndim is -1 for an
 * empty block and 0 for a single element. */
static int zh_simplify(zh_layout *L, int ndim, const int64_t *shape, const int64_t *ds,
                       const int64_t *ss, char **dst, const char **src) {
    int n = 0;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0) return ZH_ERR_SHAPE;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) { L->ndim = -1; return ZH_OK; }
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 1) continue;
        int64_t d = ds[i], s = ss ? ss[i] : 0;
        /* Flip so the destination is walked forwards (or, for a zero destination
         * stride, the source): same elements, same pairs, another visiting order.
         * (shape-1)*stride cannot overflow: it is an offset inside a real buffer. */
        if (d < 0 || (d == 0 && s < 0)) {
            *dst += (shape[i] - 1) * d;
            if (ss) *src += (shape[i] - 1) * s;
            d = -d;
            s = -s;
        }
        L->shape[n] = shape[i];
        L->ds[n] = d;
        L->ss[n] = s;
        n++;
    }
    /* insertion sort, largest destination stride first; on a tie the smaller source
     * stride goes inside.  Few dimensions, stable. */
    for (int i = 1; i < n; i++) {
        int64_t sh = L->shape[i], d = L->ds[i], s = L->ss[i];
        int j = i - 1;
        while (j >= 0 && (L->ds[j] < d || (L->ds[j] == d && zh_abs64(L->ss[j]) < zh_abs64(s)))) {
            L->shape[j + 1] = L->shape[j];
            L->ds[j + 1] = L->ds[j];
            L->ss[j + 1] = L->ss[j];
            j--;
        }
        L->shape[j + 1] = sh;
        L->ds[j + 1] = d;
        L->ss[j + 1] = s;
    }
    /* Merge the kept outer dimension k into the inner dimension i when k steps over
     * exactly the whole of i in both buffers: then (a, b) sits at (a*n_i + b) * stride_i
     * on both sides, whatever the signs (zero strides included).  An overflowing
     * product just means "not mergeable". */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0) {
            int k = m - 1;
            int64_t dspan, sspan, merged;
            if (!__builtin_mul_overflow(L->ds[i], L->shape[i], &dspan) &&
                !__builtin_mul_overflow(L->ss[i], L->shape[i], &sspan) &&
                !__builtin_mul_overflow(L->shape[k], L->shape[i], &merged) &&
                L->ds[k] == dspan && L->ss[k] == sspan) {
                L->shape[i] = merged;
                m = k;
            }
        }
        L->shape[m] = L->shape[i];
        L->ds[m] = L->ds[i];
        L->ss[m] = L->ss[i];
        m++;
    }
    L->ndim = m;
    return ZH_OK;
}

/* ---------------------------------------------------------------- run kernels ---- */

/* A run: n elements, destination element i at d + i*dstep, source at s + i*sstep. */
typedef void (*zh_run_fn)(char *restrict d, const char *restrict s, int64_t n,
                          int64_t dstep, int64_t sstep, int64_t itemsize);

static void zh_run_copy_any(char *restrict d, const char *restrict s, int64_t n,
                            int64_t dstep, int64_t sstep, int64_t itemsize) {
    if (dstep == itemsize && sstep == itemsize) {
        memcpy(d, s, (size_t)(n * itemsize));
        return;
    }
    for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, (size_t)itemsize);
}

#if defined(__clang__)
#define ZH_UNROLL4 _Pragma("clang loop unroll_count(4)")
#elif defined(__GNUC__)
#define ZH_UNROLL4 _Pragma("GCC unroll 4")
#else
#define ZH_UNROLL4
#endif

/* fixed-size copies: memcpy of a constant size is one (unaligned) load and store */
#define ZH_RUN_COPY(K)                                                                    \
    static void zh_run_copy_##K(char *restrict d, const char *restrict s, int64_t n,     \
                                int64_t dstep, int64_t sstep, int64_t itemsize) {         \
        (void)itemsize;                                                                   \
        if (dstep == K && sstep == K) {                                                   \
            memcpy(d, s, (size_t)(n * K));                                                \
        } else if (dstep == K) {                                                          \
            ZH_UNROLL4                                                                    \
            for (int64_t i = 0; i < n; i++) memcpy(d + i * K, s + i * sstep, K);          \
        } else {                                                                          \
            ZH_UNROLL4                                                                    \
            for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, K);      \
        }                                                                                 \
    }
ZH_RUN_COPY(1)
ZH_RUN_COPY(2)
ZH_RUN_COPY(4)
ZH_RUN_COPY(8)
ZH_RUN_COPY(16)

/* Byte swaps written with shifts and masks on 16-bit lanes, which compilers vectorise
 * with baseline SSE2/NEON; the bswap builtins they would otherwise pick do not
 * vectorise without SSSE3.  (A 64-bit swap is recognised as bswap64 whatever we write;
 * scalar bswap64 keeps up with memory anyway.) */
static inline uint16_t zh_b16(uint16_t v) { return (uint16_t)((v << 8) | (v >> 8)); }

static inline void zh_swap2(char *d, const char *s) {
    uint16_t v;
    memcpy(&v, s, 2);
    v = zh_b16(v);
    memcpy(d, &v, 2);
}

static inline void zh_swap4(char *d, const char *s) {
    uint16_t w[2];
    memcpy(w, s, 4);
    uint16_t o[2] = {zh_b16(w[1]), zh_b16(w[0])};
    memcpy(d, o, 4);
}

static inline void zh_swap8(char *d, const char *s) {
    uint64_t v;
    memcpy(&v, s, 8);
    v = __builtin_bswap64(v);
    memcpy(d, &v, 8);
}

/* Contiguous component swaps: n components of C bytes, both buffers packed. */
static void zh_swap2_contig(char *restrict d, const char *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) zh_swap2(d + 2 * i, s + 2 * i);
}
/* Two 4-byte components per 64-bit word, swapped with masks: written per component,
 * the compiler turns the loop into scalar bswap32 instructions and stops vectorising. */
static inline uint64_t zh_pair_b32(uint64_t v) {
    v = ((v & 0x00ff00ff00ff00ffull) << 8) | ((v >> 8) & 0x00ff00ff00ff00ffull);
    return ((v & 0x0000ffff0000ffffull) << 16) | ((v >> 16) & 0x0000ffff0000ffffull);
}
static __attribute__((noinline)) void zh_swap4_contig(char *restrict d, const char *restrict s, int64_t n) {
    const int64_t pairs = n / 2;
    for (int64_t i = 0; i < pairs; i++) {
        uint64_t v;
        memcpy(&v, s + 8 * i, 8);
        v = zh_pair_b32(v);
        memcpy(d + 8 * i, &v, 8);
    }
    if (n & 1) zh_swap4(d + 8 * pairs, s + 8 * pairs);
}
static void zh_swap8_contig(char *restrict d, const char *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) zh_swap8(d + 8 * i, s + 8 * i);
}

/* Swap kernels for component size C: packed runs collapse to a component loop whatever
 * the itemsize; itemsize == C and == 2C (complex) get unrolled element loops. */
#define ZH_RUN_SWAP(C)                                                                    \
    static void zh_run_swap##C(char *restrict d, const char *restrict s, int64_t n,       \
                               int64_t dstep, int64_t sstep, int64_t itemsize) {          \
        if (dstep == itemsize && sstep == itemsize) {                                     \
            zh_swap##C##_contig(d, s, n * (itemsize / C));                                \
        } else if (itemsize == C) {                                                       \
            for (int64_t i = 0; i < n; i++) zh_swap##C(d + i * dstep, s + i * sstep);     \
        } else if (itemsize == 2 * C) {                                                   \
            for (int64_t i = 0; i < n; i++) {                                             \
                zh_swap##C(d + i * dstep, s + i * sstep);                                 \
                zh_swap##C(d + i * dstep + C, s + i * sstep + C);                         \
            }                                                                             \
        } else {                                                                          \
            for (int64_t i = 0; i < n; i++)                                               \
                for (int64_t c = 0; c < itemsize; c += C)                                 \
                    zh_swap##C(d + i * dstep + c, s + i * sstep + c);                     \
        }                                                                                 \
    }
ZH_RUN_SWAP(2)
ZH_RUN_SWAP(4)
ZH_RUN_SWAP(8)

static zh_run_fn zh_pick_run(int64_t itemsize, int swap) {
    switch (swap) {
    case 2: return zh_run_swap2;
    case 4: return zh_run_swap4;
    case 8: return zh_run_swap8;
    default: break;
    }
    switch (itemsize) {
    case 1: return zh_run_copy_1;
    case 2: return zh_run_copy_2;
    case 4: return zh_run_copy_4;
    case 8: return zh_run_copy_8;
    case 16: return zh_run_copy_16;
    default: return zh_run_copy_any;
    }
}

/* ------------------------------------------------------------------ the walk ---- */

/* Transposing walk: the pair (b, a) is walked in square tiles of T x T elements so the
 * cache lines a tile touches on both sides are reused before they are evicted.  Rows of
 * a power-of-two-strided array fall into the same cache sets: when the source rows of a
 * tile (step along a) are a multiple of 4 KiB apart, 64 of them evict each other and a
 * 16-row tile is faster; otherwise 64 is.  (Measured on (256,256,256) f4/f8 for all
 * permutations; a variant that packs each tile through an L1 buffer first was slower:
 * the extra scalar pass costs more than the conflicts it avoids.) */
#define ZH_TILE_MIN_STEP 64 /* tile only when the inner run skips >= a cache line */
#define ZH_TILE_MAX_ITEM 32 /* a larger element is a whole-line access anyway */
#define ZH_TILE_BIG 64
#define ZH_TILE_SMALL 16

/* Copies dims [0, L->ndim - 2) by odometer; dims nd-2 (b) and nd-1 (a) either as plain
 * runs over a (tile == 0) or in tiles of tile x tile elements over (b, a). */
static void zh_walk_copy(const zh_layout *L, char *dst, const char *src, int64_t itemsize,
                         zh_run_fn run, int64_t tile) {
    const int nd = L->ndim;
    const int a = nd - 1;
    const int64_t na = L->shape[a], dsa = L->ds[a], ssa = L->ss[a];
    if (nd == 1) {
        run(dst, src, na, dsa, ssa, itemsize);
        return;
    }
    const int b = nd - 2;
    const int64_t nb = L->shape[b], dsb = L->ds[b], ssb = L->ss[b];
    const int outer = nd - 2; /* dims walked by the odometer */
    int64_t idx[ZH_MAX_DIMS] = {0};
    char *d = dst;
    const char *s = src;
    for (;;) {
        if (tile > 0) {
            for (int64_t a0 = 0; a0 < na; a0 += tile) {
                const int64_t ta = na - a0 < tile ? na - a0 : tile;
                for (int64_t b0 = 0; b0 < nb; b0 += tile) {
                    const int64_t b1 = nb - b0 < tile ? nb : b0 + tile;
                    for (int64_t ib = b0; ib < b1; ib++)
                        run(d + ib * dsb + a0 * dsa, s + ib * ssb + a0 * ssa, ta, dsa, ssa,
                            itemsize);
                }
            }
        } else {
            for (int64_t ib = 0; ib < nb; ib++)
                run(d + ib * dsb, s + ib * ssb, na, dsa, ssa, itemsize);
        }
        int k = outer - 1;
        while (k >= 0) {
            idx[k]++;
            d += L->ds[k];
            s += L->ss[k];
            if (idx[k] < L->shape[k]) break;
            d -= L->ds[k] * L->shape[k];
            s -= L->ss[k] * L->shape[k];
            idx[k] = 0;
            k--;
        }
        if (k < 0) break;
    }
}

/* When the inner run reads the source a cache line or more apart and some other
 * dimension is closer together in the source, move that dimension next to the inner
 * one (position ndim-2) and return the tile side; 0: no tiling. */
static int64_t zh_plan_tiles(zh_layout *L, int64_t itemsize) {
    const int nd = L->ndim;
    if (nd < 2 || itemsize > ZH_TILE_MAX_ITEM) return 0;
    const int a = nd - 1;
    const int64_t ssa = zh_abs64(L->ss[a]);
    if (ssa < ZH_TILE_MIN_STEP || L->shape[a] < 8) return 0;
    int best = -1;
    int64_t best_s = ssa;
    for (int i = 0; i < a; i++) {
        const int64_t si = zh_abs64(L->ss[i]);
        if (si != 0 && si < best_s && L->shape[i] >= 8) { best = i; best_s = si; }
    }
    if (best < 0) return 0;
    /* rotate dims best..a-1 so that best lands at a-1; the rest keep their order */
    const int64_t sh = L->shape[best], d = L->ds[best], s = L->ss[best];
    for (int i = best; i < a - 1; i++) {
        L->shape[i] = L->shape[i + 1];
        L->ds[i] = L->ds[i + 1];
        L->ss[i] = L->ss[i + 1];
    }
    L->shape[a - 1] = sh;
    L->ds[a - 1] = d;
    L->ss[a - 1] = s;
    return ssa % 4096 == 0 ? ZH_TILE_SMALL : ZH_TILE_BIG;
}

int zh_copy_strided(char *dst, const char *src, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const int64_t *src_bstrides,
                    int64_t itemsize, int swap) {
    if (ndim < 0 || ndim > ZH_MAX_DIMS) return ZH_ERR_NDIM;
    if (itemsize <= 0) return ZH_ERR_ITEMSIZE;
    if (swap < 0 || swap == 3 || (swap > 4 && swap != 8)) return ZH_ERR_ITEMSIZE;
    if (swap > 1 && itemsize % swap != 0) return ZH_ERR_ITEMSIZE;
    if (ndim > 0 && (shape == NULL || dst_bstrides == NULL || src_bstrides == NULL))
        return ZH_ERR_SHAPE;
    zh_layout L;
    int st = zh_simplify(&L, ndim, shape, dst_bstrides, src_bstrides, &dst, &src);
    if (st != ZH_OK) return st;
    if (L.ndim < 0) return ZH_OK;
    zh_run_fn run = zh_pick_run(itemsize, swap > 1 ? swap : 0);
    if (L.ndim == 0) {
        run(dst, src, 1, itemsize, itemsize, itemsize);
        return ZH_OK;
    }
    int64_t tile = zh_plan_tiles(&L, itemsize);
    zh_walk_copy(&L, dst, src, itemsize, run, tile);
    return ZH_OK;
}

/* ------------------------------------------------------------------- fill ---- */

/* Pattern block for packed runs of odd-sized elements: the element repeated to fill
 * ZH_FILL_BLOCK bytes (rounded down to whole elements), copied out with memcpy.  Small
 * on purpose: measured, 4 KiB memcpy calls took the slow `rep movsb` path of glibc and
 * ran at half the speed of 512-byte ones. */
#define ZH_FILL_BLOCK 512

/* packed run of n K-byte elements: a store loop the compiler vectorises */
#define ZH_FILL_PACKED(K)                                                                 \
    static void zh_fill_packed_##K(char *restrict d, int64_t n, const char *restrict v) {  \
        char e[K];                                                                        \
        memcpy(e, v, K);                                                                  \
        for (int64_t i = 0; i < n; i++) memcpy(d + i * K, e, K);                          \
    }
ZH_FILL_PACKED(2)
ZH_FILL_PACKED(4)
ZH_FILL_PACKED(8)
ZH_FILL_PACKED(16)

static void zh_fill_run(char *restrict d, int64_t n, int64_t step, const char *restrict value,
                        int64_t itemsize, const char *restrict block, int64_t block_bytes,
                        int uniform) {
    if (step == itemsize) {
        if (uniform) {
            memset(d, (unsigned char)value[0], (size_t)(n * itemsize));
            return;
        }
        switch (itemsize) {
        case 2: zh_fill_packed_2(d, n, value); return;
        case 4: zh_fill_packed_4(d, n, value); return;
        case 8: zh_fill_packed_8(d, n, value); return;
        case 16: zh_fill_packed_16(d, n, value); return;
        default: break;
        }
        if (block_bytes > 0) {
            int64_t total = n * itemsize;
            while (total >= block_bytes) {
                memcpy(d, block, (size_t)block_bytes);
                d += block_bytes;
                total -= block_bytes;
            }
            memcpy(d, block, (size_t)total); /* whole elements: the block is periodic */
            return;
        }
    }
    switch (itemsize) {
    case 1: for (int64_t i = 0; i < n; i++) d[i * step] = value[0]; return;
    case 2: for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, 2); return;
    case 4: for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, 4); return;
    case 8: for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, 8); return;
    case 16: for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, 16); return;
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, (size_t)itemsize);
        return;
    }
}

int zh_fill_strided(char *dst, int ndim, const int64_t *shape, const int64_t *dst_bstrides,
                    const char *value, int64_t itemsize) {
    if (ndim < 0 || ndim > ZH_MAX_DIMS) return ZH_ERR_NDIM;
    if (itemsize <= 0) return ZH_ERR_ITEMSIZE;
    if (value == NULL) return ZH_ERR_ITEMSIZE;
    if (ndim > 0 && (shape == NULL || dst_bstrides == NULL)) return ZH_ERR_SHAPE;
    zh_layout L;
    const char *unused = NULL;
    int st = zh_simplify(&L, ndim, shape, dst_bstrides, NULL, &dst, &unused);
    if (st != ZH_OK) return st;
    if (L.ndim < 0) return ZH_OK;
    if (L.ndim == 0) {
        memcpy(dst, value, (size_t)itemsize);
        return ZH_OK;
    }
    /* all-equal bytes (zeros, most fill values) become one memset per packed run */
    int uniform = 1;
    for (int64_t b = 1; b < itemsize; b++)
        if (value[b] != value[0]) { uniform = 0; break; }
    char block[ZH_FILL_BLOCK];
    int64_t block_bytes = 0;
    const int inner = L.ndim - 1;
    const int64_t n = L.shape[inner], step = L.ds[inner];
    if (!uniform && step == itemsize && itemsize <= ZH_FILL_BLOCK / 4 && n * itemsize > 64 &&
        itemsize != 2 && itemsize != 4 && itemsize != 8 && itemsize != 16) {
        block_bytes = (ZH_FILL_BLOCK / itemsize) * itemsize;
        if (block_bytes > n * itemsize) block_bytes = n * itemsize;
        for (int64_t o = 0; o < block_bytes; o += itemsize) memcpy(block + o, value, (size_t)itemsize);
    }
    int64_t idx[ZH_MAX_DIMS] = {0};
    char *d = dst;
    for (;;) {
        zh_fill_run(d, n, step, value, itemsize, block, block_bytes, uniform);
        int k = inner - 1;
        while (k >= 0) {
            idx[k]++;
            d += L.ds[k];
            if (idx[k] < L.shape[k]) break;
            d -= L.ds[k] * L.shape[k];
            idx[k] = 0;
            k--;
        }
        if (k < 0) break;
    }
    return ZH_OK;
}
